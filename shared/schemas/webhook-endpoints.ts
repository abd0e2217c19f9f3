import * as z from 'zod/mini';
import { WEBHOOK_EVENT_NAMES } from '../domain/webhook-events.js';
import { described } from './common.js';

export const createWebhookBody = described(
  z.strictObject({
    url: described(z.string().check(z.minLength(1), z.maxLength(2048)), {
      description:
        'Where to POST events: an https URL on a public address (the local stack also takes http and loopback), up to 2048 characters.',
      examples: ['https://example.org/hooks/mis'],
    }),
    events: z.optional(
      described(
        z
          .array(z.enum(WEBHOOK_EVENT_NAMES as [string, ...string[]]))
          .check(z.minLength(1), z.maxLength(WEBHOOK_EVENT_NAMES.length)),
        {
          description: 'Names of the events to receive; every event when left out.',
          examples: [['incident.declared', 'incident.deadline_72h']],
        },
      ),
    ),
  }),
  { id: 'NewWebhookEndpoint', description: 'A webhook endpoint to register.' },
);
