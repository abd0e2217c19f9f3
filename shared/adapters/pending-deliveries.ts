import {
  type AttributeValue,
  DeleteItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DeliveryEventName } from '../domain/webhook-events.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';

/** A delivery whose next attempt is scheduled: after a failed attempt, or sent back while its endpoint is limited. */
export interface PendingDelivery {
  organisationId: string;
  endpointId: string;
  deliveryId: string;
  eventId: string;
  event: DeliveryEventName;
  /** The attempt that comes next. */
  nextAttempt: number;
  /** ISO 8601 UTC: when the message becomes visible again. */
  nextAttemptAt: string;
  why: 'retry_scheduled' | 'endpoint_limited';
}

/** Kept a week; nothing depends on the TTL deletion (a delivery ends within about 6.5 hours). */
const KEEP_SECONDS = 7 * 24 * 3600;
const GSI = 'gsi1';

/**
 * Notes (or moves) when a delivery's next attempt is due, in the sparse index `mis deliveries
 * stuck` reads: a next attempt that never comes (a lost visibility change, a worker that died) then
 * shows as overdue instead of stalling in silence.
 */
export async function notePendingDelivery(pending: PendingDelivery): Promise<void> {
  const key = keys.pendingDelivery(pending.organisationId, pending.endpointId, pending.deliveryId);
  await dynamodb().send(
    new PutItemCommand({
      TableName: tableName(),
      Item: marshall({
        ...key,
        gsi1pk: keys.pendingDeliveries(),
        gsi1sk: `${pending.nextAttemptAt}#${pending.deliveryId}`,
        kind: 'pending-delivery',
        ...pending,
        expiresAt: Math.floor(Date.now() / 1000) + KEEP_SECONDS,
      }),
    }),
  );
}

/** The delivery ended (delivered, failed for good, skipped): nothing is due any more. */
export async function clearPendingDelivery(
  organisationId: string,
  endpointId: string,
  deliveryId: string,
): Promise<void> {
  await dynamodb().send(
    new DeleteItemCommand({
      TableName: tableName(),
      Key: marshall(keys.pendingDelivery(organisationId, endpointId, deliveryId)),
    }),
  );
}

/** Pending deliveries whose next attempt was due before `before`, the longest overdue first. */
export async function overduePendingDeliveries(before: Date, limit = 1000): Promise<PendingDelivery[]> {
  const found: PendingDelivery[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const { Items = [], LastEvaluatedKey } = await dynamodb().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: GSI,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
        ExpressionAttributeValues: marshall({
          ':pk': keys.pendingDeliveries(),
          ':before': before.toISOString(),
        }),
        Limit: Math.min(100, limit - found.length),
        ...(start ? { ExclusiveStartKey: marshall(start) } : {}),
      }),
    );
    for (const item of Items) {
      const { pk, sk, gsi1pk, gsi1sk, kind, expiresAt, ...pending } = unmarshall(item);
      found.push(pending as PendingDelivery);
    }
    start = LastEvaluatedKey ? unmarshall(LastEvaluatedKey) : undefined;
  } while (start && found.length < limit);
  return found;
}

/** How many pending deliveries are overdue (the StuckDeliveries metric): a count, not the items. */
export async function countOverduePendingDeliveries(before: Date): Promise<number> {
  let count = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const { Count = 0, LastEvaluatedKey } = await dynamodb().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: GSI,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
        ExpressionAttributeValues: marshall({
          ':pk': keys.pendingDeliveries(),
          ':before': before.toISOString(),
        }),
        Select: 'COUNT',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += Count;
    start = LastEvaluatedKey as Record<string, AttributeValue> | undefined;
  } while (start);
  return count;
}
