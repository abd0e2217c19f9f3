import * as z from 'zod/mini';
import { WEBHOOK_EVENT_NAMES } from '../domain/webhook-events.js';

export const createWebhookBody = z.strictObject({
  url: z.string().check(z.minLength(1), z.maxLength(2048)),
  /** Names of the events to receive; every event when omitted. */
  events: z.optional(
    z
      .array(z.enum(WEBHOOK_EVENT_NAMES as [string, ...string[]]))
      .check(z.minLength(1), z.maxLength(WEBHOOK_EVENT_NAMES.length)),
  ),
});
