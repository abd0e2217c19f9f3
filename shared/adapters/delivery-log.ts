import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor, MAX_PAGE_SIZE } from '../domain/cursor.js';
import type { DeliveryAttempt } from '../domain/delivery-attempt.js';
import { expiresAtOf } from '../domain/delivery-retention.js';
import { InvalidCursorError, ValidationError } from '../domain/errors.js';
import type { DeliveryMessage } from '../domain/webhook-events.js';
import { BATCH_WRITE_MAX, putItems } from './batch-items.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';

/**
 * Attempts are kept `DELIVERY_LOG_RETENTION_DAYS` (90 by default); DynamoDB's TTL removes them
 * afterwards, some time later, so every read here leaves out what has expired.
 */
const NOT_EXPIRED = '#expiresAt > :now';
const nowSeconds = () => Math.floor(Date.now() / 1000);

export const ATTEMPT_PREFIX = 'ATTEMPT#';
/** The index that finds a delivery's entries by its id, whatever its endpoint. */
export const DELIVERY_INDEX = 'gsi1';
export const deliveryIndexKey = (deliveryId: string) => `DELIVERY#${deliveryId}`;

/**
 * Items live in the endpoint's partition (`keys.deliveries`) under `ATTEMPT#<at>#<deliveryId>#<n>`:
 * ISO timestamps sort as text, so a descending query is newest first. The index entry
 * `DELIVERY#<deliveryId>` finds one delivery's entries without reading the partition (the
 * dead-letter listing's "last error", the attempt count, the event to send again).
 */
const attemptKeys = (a: DeliveryAttempt) => {
  const sk = `${ATTEMPT_PREFIX}${a.at}#${a.deliveryId}#${String(a.attempt).padStart(3, '0')}`;
  return {
    pk: keys.deliveries(a.organisationId, a.endpointId),
    sk,
    gsi1pk: deliveryIndexKey(a.deliveryId),
    gsi1sk: sk,
  };
};

/** The event an entry carries, so that the delivery can be sent again as it was (delivery-records.ts). */
export type LoggedEvent = Pick<DeliveryMessage, 'occurredAt' | 'data'>;

export interface LogEntry {
  attempt: DeliveryAttempt;
  event: LoggedEvent;
}

/** The stored item of one attempt with its event (also what the bench's delivery floor writes, batched). */
export function deliveryAttemptItem({ attempt, event }: LogEntry) {
  const expiresAt = expiresAtOf(attempt.at);
  return marshall(
    {
      ...attemptKeys(attempt),
      kind: 'delivery-attempt',
      ...attempt,
      occurredAt: event.occurredAt,
      data: event.data,
      expiresAt,
    },
    { removeUndefinedValues: true },
  );
}

export async function recordAttempt(entry: LogEntry): Promise<void> {
  await dynamodb().send(new PutItemCommand({ TableName: tableName(), Item: deliveryAttemptItem(entry) }));
}

/** Writes several attempts in BatchWriteItems (25 at most per call); throws when some stay unwritten. */
export async function recordAttempts(entries: readonly LogEntry[]): Promise<void> {
  await putItems(entries.map(deliveryAttemptItem));
}

/**
 * Gathers the attempts that end within a few milliseconds of each other into one BatchWriteItem:
 * the attempts of one batch of deliveries mostly end together. Each caller still waits for its own
 * item to be written (or for the failure), so an attempt is in the log before its message is
 * settled, as with one PutItem each.
 */
export function attemptLogBatcher(windowMs = 5): (entry: LogEntry) => Promise<void> {
  let waiting: { entry: LogEntry; done: (error?: unknown) => void }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    const batch = waiting;
    waiting = [];
    recordAttempts(batch.map((w) => w.entry)).then(
      () => {
        for (const w of batch) w.done();
      },
      (error: unknown) => {
        for (const w of batch) w.done(error);
      },
    );
  };
  return (entry) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ entry, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (waiting.length >= BATCH_WRITE_MAX) {
        clearTimeout(timer);
        flush();
      } else timer ??= setTimeout(flush, windowMs);
    });
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
      FilterExpression: NOT_EXPIRED,
      ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: marshall({ ':pk': pk, ':prefix': ATTEMPT_PREFIX, ':now': nowSeconds() }),
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
      IndexName: DELIVERY_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: marshall({ ':pk': deliveryIndexKey(deliveryId), ':prefix': ATTEMPT_PREFIX }),
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const item = Items?.[0] && (unmarshall(Items[0]).expiresAt as number) > nowSeconds() ? Items[0] : undefined;
  return item ? toAttempt(unmarshall(item)) : undefined;
}

function toAttempt(item: Record<string, unknown>): DeliveryAttempt {
  const { pk, sk, gsi1pk, gsi1sk, kind, expiresAt, occurredAt, data, ...attempt } = item;
  return attempt as unknown as DeliveryAttempt;
}
