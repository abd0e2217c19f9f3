import { randomUUID } from 'node:crypto';
import { findDelivery, listRecoverable } from '../adapters/delivery-records.js';
import { publishDeliveries } from '../adapters/event-publisher.js';
import { getWebhookEndpoint } from '../adapters/webhook-endpoint-store.js';
import { deliveryIdFor } from '../domain/delivery-id.js';
import { deliveryLogRetentionDays, retentionStart } from '../domain/delivery-retention.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import type { WebhookEndpoint } from '../domain/webhook-endpoint.js';
import { type DeliveryMessage, TEST_EVENT } from '../domain/webhook-events.js';

/**
 * The owner's sends: a test event, one delivery again, everything missed since a time. Each goes
 * through the delivery queue like every delivery (signed, logged, counted by the one `attempt`
 * rule); none is sent from the API function itself, so a slow receiver never holds a request.
 */

/** Puts deliveries on their way: the event bus from the API (as the relay does); the CLI sends to the queue. */
export type SendDeliveries = (messages: DeliveryMessage[]) => Promise<void>;

/** The caller's endpoint, or 404: another organisation's endpoint is as unknown as none. */
export async function ownEndpoint(organisationId: string, endpointId: string): Promise<WebhookEndpoint> {
  const endpoint = await getWebhookEndpoint(organisationId, endpointId);
  if (!endpoint) throw new NotFoundError('Webhook endpoint');
  return endpoint;
}

/** `webhook.test` to this endpoint alone, one attempt; answers its delivery id. */
export async function sendTestDelivery(
  endpoint: WebhookEndpoint,
  send: SendDeliveries = publishDeliveries,
  now = new Date(),
): Promise<string> {
  const eventId = randomUUID();
  const message: DeliveryMessage = {
    eventId,
    event: TEST_EVENT,
    organisationId: endpoint.organisationId,
    occurredAt: now.toISOString(),
    data: { id: endpoint.id },
    deliveryId: deliveryIdFor(eventId, endpoint.id),
    endpointId: endpoint.id,
    once: true,
  };
  await send([message]);
  return message.deliveryId;
}

/**
 * The same delivery (same event, same delivery id) once more, now: one attempt with no automatic
 * retries after it. 404 when the log does not hold it (unknown, another endpoint's, or expired).
 */
export async function redeliver(
  endpoint: WebhookEndpoint,
  deliveryId: string,
  send: SendDeliveries = publishDeliveries,
): Promise<void> {
  const message = await findDelivery(endpoint.organisationId, endpoint.id, deliveryId);
  if (!message) throw new NotFoundError('Delivery');
  await send([{ ...message, once: true }]);
}

/**
 * Every delivery of the endpoint whose last outcome since `since` is failed or skipped (or the 410
 * that disabled it), sent again oldest first, each with a fresh automatic schedule. `since` must lie
 * within the log's retention and not in the future (400): the answer could not be complete.
 */
export async function recoverDeliveries(
  endpoint: WebhookEndpoint,
  since: Date,
  send: SendDeliveries = publishDeliveries,
  now = new Date(),
): Promise<number> {
  if (since.getTime() > now.getTime()) {
    throw new ValidationError([{ field: 'since', message: 'Must not be in the future.' }]);
  }
  if (since.getTime() < retentionStart(now).getTime()) {
    throw new ValidationError([
      {
        field: 'since',
        message: `Must be within the delivery log's retention (${deliveryLogRetentionDays()} days); older deliveries are gone.`,
      },
    ]);
  }
  const messages = await listRecoverable(endpoint.organisationId, endpoint.id, since, now);
  await send(messages.map((message) => ({ ...message, resent: true })));
  return messages.length;
}
