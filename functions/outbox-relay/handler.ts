import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  DynamoDBBatchResponse,
  DynamoDBStreamEvent,
  AttributeValue as StreamAttributeValue,
} from 'aws-lambda';
import { publishDeliveries } from '../../shared/adapters/event-publisher.js';
import { listWebhookEndpoints } from '../../shared/adapters/webhook-endpoint-store.js';
import { deliveryIdFor } from '../../shared/domain/delivery-id.js';
import { subscribes } from '../../shared/domain/webhook-endpoint.js';
import type { DeliveryMessage, DomainEvent } from '../../shared/domain/webhook-events.js';
import { logger } from '../../shared/observability.js';

/**
 * Relays outbox items from the table's stream to the event bus, one entry per subscribed endpoint,
 * so that each endpoint's delivery is retried on its own. Records are handled in stream order; on a
 * failure the rest of the batch is reported back and retried from the first record not relayed.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  for (const record of event.Records) {
    try {
      const image = record.dynamodb?.NewImage;
      if (!image) continue;
      const {
        eventId,
        event: name,
        organisationId,
        occurredAt,
        data,
      } = unmarshall(
        image as Record<string, AttributeValue | StreamAttributeValue> as Record<string, AttributeValue>,
      ) as DomainEvent;
      const endpoints = (await listWebhookEndpoints(organisationId)).filter((e) => subscribes(e, name));
      const messages: DeliveryMessage[] = endpoints.map((endpoint) => ({
        deliveryId: deliveryIdFor(eventId, endpoint.id),
        endpointId: endpoint.id,
        eventId,
        event: name,
        organisationId,
        occurredAt,
        data,
      }));
      await publishDeliveries(messages);
      logger.info('Event relayed', { eventId, event: name, organisationId, deliveries: messages.length });
    } catch (error) {
      logger.error('Relay failed', { error, sequenceNumber: record.dynamodb?.SequenceNumber });
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
}
