import * as z from 'zod/mini';
import { WEBHOOK_EVENT_NAMES } from '../domain/webhook-events.js';
import { described, instantInput, PAST_INSTANT_EXAMPLE } from './common.js';

const webhookUrl = described(z.string().check(z.minLength(1), z.maxLength(2048)), {
  description:
    'Where to POST events: an https URL on a public address (the local stack also takes http and loopback), up to 2048 characters.',
  examples: ['https://example.org/hooks/mis'],
});

const webhookEvents = described(
  z
    .array(z.enum(WEBHOOK_EVENT_NAMES as [string, ...string[]]))
    .check(z.minLength(1), z.maxLength(WEBHOOK_EVENT_NAMES.length)),
  {
    description: 'Names of the events to receive; every event when left out.',
    examples: [['incident.declared', 'incident.deadline_72h']],
  },
);

const endpointDescription = described(z.string().check(z.trim(), z.minLength(1), z.maxLength(500)), {
  description:
    'Your own note on the endpoint (which system receives here), 1 to 500 characters; never sent to it. Do not put personal data here.',
  examples: ['Case-management system, production'],
});

export const createWebhookBody = described(
  z.strictObject({
    url: webhookUrl,
    events: z.optional(webhookEvents),
    description: z.optional(endpointDescription),
  }),
  { id: 'NewWebhookEndpoint', description: 'A webhook endpoint to register.' },
);

export const updateWebhookBody = described(
  z.strictObject({
    url: z.optional(webhookUrl),
    events: z.optional(webhookEvents),
    description: z.optional(z.nullable(endpointDescription)),
    enabled: z.optional(
      described(z.boolean(), {
        description:
          '`false` disables the endpoint (`disabledReason` `manual`): its events are logged as `skipped`, not sent. `true` enables it again; `POST /webhooks/{id}/recover` then sends what was skipped.',
        examples: [true],
      }),
    ),
  }),
  { id: 'WebhookEndpointChange', description: 'The fields to change; those left out stay as they are.' },
);

/** Svix and Stripe keep the old secret a day by default; a week at most keeps a leaked one short-lived. */
export const DEFAULT_OVERLAP_HOURS = 24;
export const MAX_OVERLAP_HOURS = 168;

export const rotateSecretBody = described(
  z.strictObject({
    overlapHours: z._default(
      described(z.int().check(z.minimum(0), z.maximum(MAX_OVERLAP_HOURS)), {
        description: `How long the old secret keeps signing beside the new one, 0 to ${MAX_OVERLAP_HOURS} hours (default ${DEFAULT_OVERLAP_HOURS}). 0 stops it at once: the rotation after a leak.`,
        examples: [DEFAULT_OVERLAP_HOURS],
      }),
      DEFAULT_OVERLAP_HOURS,
    ),
  }),
  { id: 'SecretRotation', description: 'How long the old secret overlaps with the new one.' },
);

export const recoverBody = described(
  z.strictObject({
    since: instantInput(
      'Send again every delivery whose last outcome since then is failed or skipped. Not in the future, and within the delivery log retention (90 days by default).',
      PAST_INSTANT_EXAMPLE,
    ),
  }),
  { id: 'RecoverRequest', description: 'From when to recover missed deliveries.' },
);

/** An operation that takes no fields: a bare POST or `{}`. */
export const noBody = z.strictObject({});
