import { randomUUID } from 'node:crypto';
/**
 * The webhook events of spec section 6.3 and the key under which each payload carries its
 * resource: `{event, organisationId, <resourceKey>: {...}, attempt}`.
 */
export const WEBHOOK_EVENTS = {
  'incident.declared': 'incident',
  'incident.contained': 'incident',
  'incident.notified': 'incident',
  'incident.closed': 'incident',
  'incident.deadline_72h': 'incident',
  'member.created': 'member',
  'contribution.received': 'contribution',
  'timebank.payout.settled': 'payout',
  'sanctuary.file.expired': 'file',
} as const;

export type WebhookEventName = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_NAMES = Object.keys(WEBHOOK_EVENTS) as WebhookEventName[];

export function isWebhookEventName(name: string): name is WebhookEventName {
  return Object.hasOwn(WEBHOOK_EVENTS, name);
}

/**
 * `POST /webhooks/{id}/test` sends this to one endpoint. It is no subscription (it is not in
 * WEBHOOK_EVENTS): an endpoint gets it only when its owner asks, whatever events it takes.
 */
export const TEST_EVENT = 'webhook.test' as const;
/** Every event a delivery can carry. */
export type DeliveryEventName = WebhookEventName | typeof TEST_EVENT;
export const DELIVERY_EVENT_NAMES: readonly DeliveryEventName[] = [...WEBHOOK_EVENT_NAMES, TEST_EVENT];

const resourceKeyOf = (event: DeliveryEventName): string =>
  event === TEST_EVENT ? 'webhook' : WEBHOOK_EVENTS[event];

/** An event as the outbox records it, before it is fanned out to endpoints. */
export interface DomainEvent {
  eventId: string;
  event: DeliveryEventName;
  organisationId: string;
  occurredAt: string;
  /** The resource as subscribers see it: ids and non-personal fields only. */
  data: Record<string, unknown>;
}

/**
 * One delivery: one event for one endpoint. It is the EventBridge detail and the SQS message body,
 * so each endpoint's retries are counted and scheduled apart from every other endpoint's.
 */
export interface DeliveryMessage extends DomainEvent {
  deliveryId: string;
  endpointId: string;
  /**
   * One attempt and no automatic retries (a test send, a redeliver): its outcome is logged and a
   * failure is final. Left out for every other delivery, which follows the retry schedule.
   */
  once?: boolean;
  /**
   * Sent again by an owner or an operator (a recover, a dead-letter redrive): its earlier attempts
   * are in the log and its number goes on from them. Left out on the relay's messages.
   */
  resent?: boolean;
}

/** The exact JSON a subscriber receives; `attempt` is 1 on the first try. */
export function webhookBody(message: DomainEvent, attempt: number): string {
  return JSON.stringify({
    event: message.event,
    organisationId: message.organisationId,
    [resourceKeyOf(message.event)]: message.data,
    attempt,
  });
}

export function newDomainEvent(
  event: WebhookEventName,
  organisationId: string,
  data: Record<string, unknown>,
  now: Date,
): DomainEvent {
  return { eventId: randomUUID(), event, organisationId, occurredAt: now.toISOString(), data };
}
