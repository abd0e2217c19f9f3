import type { ReceivedWebhook, Receiver } from './webhook-receiver.js';

export type WebhookMatch = (webhook: ReceivedWebhook) => boolean;

/** A webhook about the resource with this id, carried under `key` (`incident`, `file`, `payout`…). */
export const about =
  (key: string, id: string): WebhookMatch =>
  (webhook) =>
    (webhook.body[key] as { id?: string } | undefined)?.id === id;

export const forIncident = (id: string): WebhookMatch => about('incident', id);

/**
 * The webhooks matching `matching` that `receiver` holds once `marker` has arrived (at `markerAt`,
 * the same receiver unless said). The marker is an event caused after the ones under test, and
 * deliveries go out in the order their events were committed, so whatever was on its way before it
 * has arrived by then: a positive signal for "nothing more arrives", where a sleep would only hope.
 */
export async function receivedBeforeMarker(
  receiver: Receiver,
  matching: WebhookMatch,
  marker: WebhookMatch,
  { markerAt = receiver, timeoutMs }: { markerAt?: Receiver; timeoutMs?: number } = {},
): Promise<ReceivedWebhook[]> {
  await markerAt.waitFor(1, marker, timeoutMs);
  return receiver.received.filter(matching);
}
