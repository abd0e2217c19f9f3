import { randomBytes } from 'node:crypto';
import { type DeliveryEventName, isWebhookEventName, type WebhookEventName } from './webhook-events.js';

/**
 * Why an endpoint receives nothing for now: it answered 410 Gone, every attempt failed for
 * `WEBHOOK_DISABLE_AFTER_HOURS`, or its owner disabled it.
 */
export const DISABLED_REASONS = ['gone', 'failing', 'manual'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

export interface WebhookEndpoint {
  id: string;
  organisationId: string;
  url: string;
  /** The events it receives; every event when it names none. */
  events: WebhookEventName[];
  /** The owner's own note (which system receives here); never sent anywhere. */
  description: string | null;
  createdAt: string;
  disabledAt: string | null;
  disabledReason: DisabledReason | null;
  /** Since when every attempt has failed (cleared by a success); what the `failing` disable counts from. */
  failingSince: string | null;
  /** While a rotation's overlap lasts, the previous secret still signs every delivery until then. */
  previousSecretExpiresAt: string | null;
}

/** `whsec_` + base64 of 32 random bytes: GitHub-style and Standard Webhooks signing share one secret. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export const isEnabled = (endpoint: Pick<WebhookEndpoint, 'disabledAt'>): boolean =>
  endpoint.disabledAt === null;

/**
 * Whether the endpoint takes this event. A disabled endpoint still does: its deliveries are logged
 * as `skipped` instead of being sent, so that a `recover` after enabling it can send them.
 */
export function subscribes(endpoint: WebhookEndpoint, event: DeliveryEventName): boolean {
  if (!isWebhookEventName(event)) return false;
  return endpoint.events.length === 0 || endpoint.events.includes(event);
}

/** A stored reason from before the reasons were codes ("The endpoint answered 410 Gone.") reads as `gone`. */
export function disabledReasonOf(stored: unknown, disabledAt: unknown): DisabledReason | null {
  if (disabledAt === undefined || disabledAt === null) return null;
  return (DISABLED_REASONS as readonly unknown[]).includes(stored) ? (stored as DisabledReason) : 'gone';
}
