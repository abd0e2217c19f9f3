import { randomBytes } from 'node:crypto';
import type { WebhookEventName } from './webhook-events.js';

export interface WebhookEndpoint {
  id: string;
  organisationId: string;
  url: string;
  /** The events it receives; every event when it names none. */
  events: WebhookEventName[];
  createdAt: string;
  disabledAt: string | null;
  disabledReason: string | null;
}

/** `whsec_` + base64 of 32 random bytes: GitHub-style and Standard Webhooks signing share one secret. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function subscribes(endpoint: WebhookEndpoint, event: WebhookEventName): boolean {
  return endpoint.disabledAt === null && (endpoint.events.length === 0 || endpoint.events.includes(event));
}
