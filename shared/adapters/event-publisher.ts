import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { requireEnv } from '../config.js';
import type { DeliveryMessage } from '../domain/webhook-events.js';
import { DELIVERY_DETAIL_TYPE, EVENT_SOURCE, PUT_EVENTS_BATCH } from '../topology/event-bus.js';
import { guarded } from './access-guard.js';

/** `EVENTBRIDGE_ENDPOINT` is set only by the local stack, whose in-process bus speaks PutEvents. */
function createClient(): EventBridgeClient {
  const endpoint = process.env.EVENTBRIDGE_ENDPOINT;
  if (!endpoint) return new EventBridgeClient({});
  return new EventBridgeClient({
    endpoint,
    region: process.env.AWS_REGION || 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

let client: EventBridgeClient | undefined;

/** PutEvents can accept some entries and refuse others; the refused ones are sent again, a few times. */
const ATTEMPTS = 3;

/** The bus kept refusing some entries; `firstUnsent` is the index of the first of them in the input. */
export class PublishError extends Error {
  constructor(readonly firstUnsent: number) {
    super(`EventBridge refused deliveries from index ${firstUnsent} after ${ATTEMPTS} attempts`);
  }
}

export async function publishDeliveries(messages: DeliveryMessage[]): Promise<void> {
  client ??= guarded(createClient());
  const eventBusName = requireEnv('EVENT_BUS_NAME');
  for (let start = 0; start < messages.length; start += PUT_EVENTS_BATCH) {
    let pending = messages.slice(start, start + PUT_EVENTS_BATCH).map((message, i) => ({
      index: start + i,
      entry: {
        EventBusName: eventBusName,
        Source: EVENT_SOURCE,
        DetailType: DELIVERY_DETAIL_TYPE,
        Detail: JSON.stringify(message),
        Time: new Date(message.occurredAt),
      } satisfies PutEventsRequestEntry,
    }));
    for (let attempt = 1; pending.length > 0; attempt++) {
      const { Entries = [] } = await client.send(
        new PutEventsCommand({ Entries: pending.map((p) => p.entry) }),
      );
      pending = pending.filter(
        (_, i) => Entries[i]?.ErrorCode !== undefined || Entries[i]?.EventId === undefined,
      );
      const first = pending[0];
      if (first && attempt >= ATTEMPTS) throw new PublishError(first.index);
    }
  }
}
