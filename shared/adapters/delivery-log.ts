import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor, MAX_PAGE_SIZE } from '../domain/cursor.js';
import type { DeliveryAttempt } from '../domain/delivery-attempt.js';
import { InvalidCursorError, ValidationError } from '../domain/errors.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';

/** Attempts are kept for a month; DynamoDB's TTL removes them afterwards (nothing depends on it). */
export const DELIVERY_LOG_RETENTION_DAYS = 30;

const ATTEMPT_PREFIX = 'ATTEMPT#';
const GSI = 'gsi1';

/**
 * Items live in the endpoint's partition (`keys.deliveries`) under `ATTEMPT#<at>#<deliveryId>#<n>`:
 * ISO timestamps sort as text, so a descending query is newest first. The index entry
 * `DELIVERY#<deliveryId>` finds the newest attempt of one delivery without reading the partition
 * (the dead-letter listing's "last error").
 */
const attemptKeys = (a: DeliveryAttempt) => {
  const sk = `${ATTEMPT_PREFIX}${a.at}#${a.deliveryId}#${String(a.attempt).padStart(3, '0')}`;
  return {
    pk: keys.deliveries(a.organisationId, a.endpointId),
    sk,
    gsi1pk: `DELIVERY#${a.deliveryId}`,
    gsi1sk: sk,
  };
};

/** The stored item of one attempt (also what the bench's delivery floor writes, batched). */
export function deliveryAttemptItem(attempt: DeliveryAttempt) {
  const expiresAt = Math.floor(Date.parse(attempt.at) / 1000) + DELIVERY_LOG_RETENTION_DAYS * 24 * 3600;
  return marshall(
    { ...attemptKeys(attempt), kind: 'delivery-attempt', ...attempt, expiresAt },
    { removeUndefinedValues: true },
  );
}

export async function recordAttempt(attempt: DeliveryAttempt): Promise<void> {
  await dynamodb().send(new PutItemCommand({ TableName: tableName(), Item: deliveryAttemptItem(attempt) }));
}

export interface DeliveryPage {
  deliveries: DeliveryAttempt[];
  /** Pass back as `cursor` for the next, older page; null on the last page. */
  nextCursor: string | null;
}

/**
 * An endpoint's attempts, newest first. The cursor is opaque and bound to this endpoint's
 * partition: one made for another endpoint or organisation is refused (400), never followed.
 */
export async function listDeliveries(
  organisationId: string,
  endpointId: string,
  page: { limit?: number; cursor?: string } = {},
): Promise<DeliveryPage> {
  const limit = page.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new ValidationError([{ field: 'query.limit', message: `Must be from 1 to ${MAX_PAGE_SIZE}.` }]);
  }
  const pk = keys.deliveries(organisationId, endpointId);
  const startKey = page.cursor
    ? decodeCursor(page.cursor, { name: 'pk', value: pk }, ['pk', 'sk'])
    : undefined;
  if (startKey && !startKey.sk?.startsWith(ATTEMPT_PREFIX)) {
    throw new InvalidCursorError();
  }
  const { Items, LastEvaluatedKey } = await dynamodb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: marshall({ ':pk': pk, ':prefix': ATTEMPT_PREFIX }),
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
      ...(startKey ? { ExclusiveStartKey: marshall(startKey) } : {}),
    }),
  );
  const last = LastEvaluatedKey ? unmarshall(LastEvaluatedKey) : undefined;
  return {
    deliveries: (Items ?? []).map((item) => toAttempt(unmarshall(item))),
    nextCursor: last ? encodeCursor({ pk: String(last.pk), sk: String(last.sk) }) : null,
  };
}

/** The newest recorded attempt of one delivery, whichever endpoint it belongs to. */
export async function latestAttempt(deliveryId: string): Promise<DeliveryAttempt | undefined> {
  const { Items } = await dynamodb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: GSI,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: marshall({ ':pk': `DELIVERY#${deliveryId}`, ':prefix': ATTEMPT_PREFIX }),
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const item = Items?.[0];
  return item ? toAttempt(unmarshall(item)) : undefined;
}

function toAttempt(item: Record<string, unknown>): DeliveryAttempt {
  const { pk, sk, gsi1pk, gsi1sk, kind, expiresAt, ...attempt } = item;
  return attempt as unknown as DeliveryAttempt;
}
