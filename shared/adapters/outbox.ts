import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DomainEvent, WebhookEventName } from '../domain/webhook-events.js';
import { tableName } from './dynamodb.js';
import type { TransactionItem } from './transaction.js';

/** Outbox items are relayed within seconds; a week's margin before TTL may drop them. */
const OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;

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
