import { paginateQuery, QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DeliveryOutcome } from '../domain/delivery-attempt.js';
import { isExpired } from '../domain/delivery-retention.js';
import type { DeliveryMessage } from '../domain/webhook-events.js';
import { ATTEMPT_PREFIX, DELIVERY_INDEX, deliveryIndexKey } from './delivery-log.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';

/**
 * What a delivery is made of, read back from its entries in the delivery log: each entry (attempt
 * or skip) carries the event exactly as it was sent (the payload holds ids and non-personal fields
 * only), so the newest one says how many attempts the delivery has had, how it last ended, and
 * which event to send again. Nothing is written here: the log write after each attempt (batched)
 * is the only write a delivery makes, and an entry expires with the log's retention, so recover and
 * redeliver can rebuild the exact event for as long as the log shows it (the outbox item that first
 * carried the event is kept 7 days only).
 */

/** Outcomes a `recover` sends again: the event never reached the endpoint. */
export const RECOVERABLE_OUTCOMES = [
  'failed',
  'skipped',
  'endpoint_disabled',
] as const satisfies readonly DeliveryOutcome[];

interface LoggedEntry {
  pk: string;
  sk: string;
  deliveryId: string;
  eventId: string;
  event: DeliveryMessage['event'];
  attempt: number;
  outcome: DeliveryOutcome;
  occurredAt?: string;
  data?: Record<string, unknown>;
  expiresAt: number;
}

/**
 * The delivery's entries in the log, oldest first: through the index by delivery id, and only those
 * in this endpoint's partition (a delivery id names one endpoint of one organisation; the check
 * keeps another organisation's entries out whatever the id). The index is eventually consistent on
 * AWS: an entry written within the last second may be missing.
 */
async function entriesOf(organisationId: string, endpointId: string, deliveryId: string, now: Date) {
  const partition = keys.deliveries(organisationId, endpointId);
  const { Items } = await dynamodb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: DELIVERY_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: marshall({ ':pk': deliveryIndexKey(deliveryId), ':prefix': ATTEMPT_PREFIX }),
    }),
  );
  return (Items ?? [])
    .map((item) => unmarshall(item) as LoggedEntry)
    .filter((entry) => entry.pk === partition && !isExpired(entry.expiresAt, now));
}

/**
 * Attempts the delivery has made so far, whatever sent them (automatic, redriven, redelivered,
 * recovered): the highest attempt number its log holds. A skip is no attempt (nothing reached
 * anyone), and an attempt cut short by a crash before its log write is not in the log: the caller
 * also counts SQS's receives for those.
 */
export async function attemptsMadeSoFar(message: DeliveryMessage, now = new Date()): Promise<number> {
  const entries = await entriesOf(message.organisationId, message.endpointId, message.deliveryId, now);
  return entries.reduce(
    (most, entry) => (entry.outcome === 'skipped' ? most : Math.max(most, Number(entry.attempt) || 0)),
    0,
  );
}

/** The delivery's exact event, or undefined when the log holds none of it (or its retention is over). */
export async function findDelivery(
  organisationId: string,
  endpointId: string,
  deliveryId: string,
  now = new Date(),
): Promise<DeliveryMessage | undefined> {
  const entries = await entriesOf(organisationId, endpointId, deliveryId, now);
  const newest = entries.filter((entry) => entry.data !== undefined).at(-1);
  return newest ? messageOf(newest, organisationId, endpointId) : undefined;
}

/**
 * Every delivery of the endpoint whose newest log entry since `since` is recoverable, as the
 * messages to send again, oldest event first. Reads the endpoint's log from `since` on, a page at a
 * time: the entries are sorted by when their attempt started.
 */
export async function listRecoverable(
  organisationId: string,
  endpointId: string,
  since: Date,
  now = new Date(),
): Promise<DeliveryMessage[]> {
  const pages = paginateQuery(
    { client: dynamodb() },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      FilterExpression: '#expiresAt > :now',
      ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: marshall({
        ':pk': keys.deliveries(organisationId, endpointId),
        ':from': `${ATTEMPT_PREFIX}${since.toISOString()}`,
        // Past every ISO timestamp: the rest of the log.
        ':to': `${ATTEMPT_PREFIX}~`,
        ':now': Math.floor(now.getTime() / 1000),
      }),
      ConsistentRead: true,
    },
  );
  const newest = new Map<string, LoggedEntry>();
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const entry = unmarshall(item) as LoggedEntry;
      // Ascending by start time: a later entry of the same delivery replaces the earlier one.
      newest.set(entry.deliveryId, entry);
    }
  }
  const recoverable: readonly DeliveryOutcome[] = RECOVERABLE_OUTCOMES;
  return (
    [...newest.values()]
      .filter((entry) => recoverable.includes(entry.outcome) && entry.data !== undefined)
      .map((entry) => messageOf(entry, organisationId, endpointId))
      // Oldest first, so that a subscriber receives what it missed in the order it happened.
      .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt))
  );
}

function messageOf(entry: LoggedEntry, organisationId: string, endpointId: string): DeliveryMessage {
  return {
    deliveryId: entry.deliveryId,
    endpointId,
    organisationId,
    eventId: entry.eventId,
    event: entry.event,
    occurredAt: String(entry.occurredAt),
    data: entry.data ?? {},
  };
}
