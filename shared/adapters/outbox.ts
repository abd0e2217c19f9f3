import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DomainEvent, WebhookEventName } from '../domain/webhook-events.js';
import { tableName } from './dynamodb.js';
import type { TransactionItem } from './transaction.js';

/** Outbox items are relayed within seconds; a week's margin before TTL may drop them. */
const OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;

/**
 * Only new outbox items reach the relay. Lambda's event source mapping filters the stream with this
 * pattern on AWS, and the local stream poller applies the same one.
 */
export const OUTBOX_STREAM_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { kind: { S: ['outbox'] } } },
} as const;

export function newDomainEvent(
  event: WebhookEventName,
  organisationId: string,
  data: Record<string, unknown>,
  now: Date,
): DomainEvent {
  return { eventId: randomUUID(), event, organisationId, occurredAt: now.toISOString(), data };
}

export function outboxWrite(event: DomainEvent): TransactionItem {
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: marshall(
          {
            pk: `OUTBOX#${event.eventId}`,
            sk: 'EVENT',
            kind: 'outbox',
            ...event,
            expiresAt: Math.floor(Date.parse(event.occurredAt) / 1000) + OUTBOX_RETENTION_SECONDS,
          },
          { removeUndefinedValues: true },
        ),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}
