import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { PublishError, publishDeliveries } from '../../shared/adapters/event-publisher.js';
import { type RelayedItem, writeRelayReceipt } from '../../shared/adapters/relay-receipts.js';
import { listWebhookEndpoints } from '../../shared/adapters/webhook-endpoint-store.js';
import { deliveryIdFor } from '../../shared/domain/delivery-id.js';
import { subscribes, type WebhookEndpoint } from '../../shared/domain/webhook-endpoint.js';
import type { DeliveryMessage, DomainEvent } from '../../shared/domain/webhook-events.js';
import { logger, MetricUnit, publishMetrics } from '../../shared/observability.js';
import { PUT_EVENTS_BATCH } from '../../shared/topology/event-bus.js';
import { METRIC } from '../../shared/topology/metrics.js';
import { RELAY_STREAM } from '../../shared/topology/relay-stream.js';

/** A delivery and the stream record it came from, so that a failure can name where to resume. */
interface Pending {
  message: DeliveryMessage;
  sequenceNumber: string;
}

/** The event of an outbox item's record, and when that copy was put on the stream (for the receipt). */
function outboxItemOf(record: DynamoDBRecord): { event: DomainEvent; onStreamAt: string } {
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (!image) throw new Error('Stream record without a new image');
  const item = unmarshall(image);
  const { eventId, event, organisationId, occurredAt, data } = item as DomainEvent;
  return {
    event: { eventId, event, organisationId, occurredAt, data },
    onStreamAt: typeof item.dueAt === 'string' ? item.dueAt : occurredAt,
  };
}

/**
 * Relays outbox items from the table's stream to the event bus, one entry per subscribed endpoint,
 * so that each endpoint's delivery is retried on its own. A batch reads each organisation's
 * endpoints once and sends the entries ten at a time, in stream order. On a failure, the batch is
 * reported from the first record not fully relayed (a record with several endpoints may then be
 * relayed twice; its delivery ids stay the same, so subscribers see a duplicate they can drop,
 * never a loss).
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const endpointsOf = new Map<string, Promise<WebhookEndpoint[]>>();
  const pending: Pending[] = [];
  const relayed: RelayedItem[] = [];
  for (const record of event.Records) {
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    try {
      const { event: outboxEvent, onStreamAt } = outboxItemOf(record);
      relayed.push({ eventId: outboxEvent.eventId, onStreamAt });
      const { organisationId } = outboxEvent;
      if (!endpointsOf.has(organisationId))
        endpointsOf.set(organisationId, listWebhookEndpoints(organisationId));
      const endpoints = ((await endpointsOf.get(organisationId)) ?? []).filter((e) =>
        subscribes(e, outboxEvent.event),
      );
      for (const endpoint of endpoints) {
        const message = {
          ...outboxEvent,
          deliveryId: deliveryIdFor(outboxEvent.eventId, endpoint.id),
          endpointId: endpoint.id,
        };
        pending.push({ message, sequenceNumber });
      }
    } catch (error) {
      // Everything before this record is relayed first; the batch resumes here.
      logger.error('Relay could not read a record', { error, sequenceNumber });
      return (await publish(pending)) ?? { batchItemFailures: [{ itemIdentifier: sequenceNumber }] };
    }
  }
  const failed = await publish(pending);
  if (failed) return failed;
  // Only now that every delivery of the batch is on the bus: the sweep replays what no receipt names.
  await writeRelayReceipt(relayed);
  return { batchItemFailures: [] };
}

/**
 * Sends the deliveries ten to a PutEvents call, a few calls at a time; on a failure, names the
 * record to resume from: the first record of the earliest chunk not fully sent (a later chunk that
 * was sent meanwhile is sent again on the retry, with the same delivery ids).
 */
async function publish(pending: Pending[]): Promise<DynamoDBBatchResponse | undefined> {
  const chunks: Pending[][] = [];
  for (let start = 0; start < pending.length; start += PUT_EVENTS_BATCH)
    chunks.push(pending.slice(start, start + PUT_EVENTS_BATCH));
  for (let wave = 0; wave < chunks.length; wave += RELAY_STREAM.publishConcurrency) {
    const inFlight = chunks.slice(wave, wave + RELAY_STREAM.publishConcurrency);
    const results = await Promise.allSettled(inFlight.map(publishChunk));
    const failedAt = results.findIndex((r) => r.status === 'rejected');
    const failed = results[failedAt];
    const chunk = inFlight[failedAt];
    if (failed?.status === 'rejected' && chunk) {
      const error: unknown = failed.reason;
      const unsent = error instanceof PublishError ? error.firstUnsent : 0;
      const resumeAt = chunk[unsent]?.sequenceNumber ?? chunk[0]?.sequenceNumber ?? '';
      logger.error('Relay failed', { error, sequenceNumber: resumeAt });
      return { batchItemFailures: [{ itemIdentifier: resumeAt }] };
    }
  }
  logger.debug('Events relayed', { deliveries: pending.length });
  return undefined;
}

async function publishChunk(chunk: Pending[]): Promise<void> {
  await publishDeliveries(chunk.map((p) => p.message));
  const relayedAt = Date.now();
  publishMetrics((metrics) => {
    for (const { message } of chunk) {
      const lag = Math.max(0, relayedAt - Date.parse(message.occurredAt));
      metrics.addMetric(METRIC.relayLag, MetricUnit.Milliseconds, lag);
    }
  });
}
