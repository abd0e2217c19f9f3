import { PutItemCommand, paginateQuery } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DomainEvent } from '../domain/webhook-events.js';
import { dynamodb, isConditionalCheckFailure, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import { TIMERS_INDEX } from './timer-store.js';
import type { TransactionItem } from './transaction.js';

/** Outbox items are relayed within seconds; a week's margin before TTL may drop them. */
export const OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;

/**
 * Outbox items are spread over a few partitions of the `timers` index, sorted by when they were put
 * on the stream, as timers are: the sweep reads each partition forward from its checkpoint.
 */
export const OUTBOX_SHARDS = 4;

function outboxShard(eventId: string): number {
  return (Number.parseInt(eventId.slice(0, 2), 16) || 0) % OUTBOX_SHARDS;
}

/**
 * The outbox item is the source of truth for an event: the stream keeps a record 24 hours, the
 * item 7 days. It stays in the `timers` index under its shard's partition, sorted by `dueAt` (when
 * it was put on the stream), where the sweep finds what no relay receipt names.
 */
export function outboxWrite(event: DomainEvent): TransactionItem {
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: outboxItem(event, { pk: `OUTBOX#${event.eventId}`, onStreamAt: event.occurredAt, replays: 0 }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** An outbox item (the original or a replay), as the sweep reads it back from the index. */
export interface OutboxItem {
  event: DomainEvent;
  /** 0 for the original; n for the n-th replay. */
  replays: number;
  /** When this copy was put on the stream: the event's occurrence, or the replay's time. */
  onStreamAt: string;
}

/**
 * Puts an unrelayed event back on the stream: a new outbox item (another key, so on AWS most
 * likely another shard than a poison record blocking the original's) carrying the same event, so
 * the relay fans it out with the same delivery ids. The replay sits in the index at its own time:
 * if no relay names it either, the sweep finds it one threshold later and replays again. Two
 * sweeps replaying the same copy at once write it once (the second put's condition fails): false
 * when the replay was there already.
 */
export async function putReplay(item: OutboxItem, at: Date): Promise<boolean> {
  const { event } = item;
  const replays = item.replays + 1;
  try {
    await dynamodb().send(
      new PutItemCommand({
        TableName: tableName(),
        Item: outboxItem(event, {
          pk: `OUTBOX#${event.eventId}#REPLAY#${replays}`,
          onStreamAt: at.toISOString(),
          replays,
          expiresAt: Math.floor(at.getTime() / 1000) + OUTBOX_RETENTION_SECONDS,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/** The one shape of an outbox item, original or replay. */
function outboxItem(
  event: DomainEvent,
  copy: { pk: string; onStreamAt: string; replays: number; expiresAt?: number },
) {
  const { eventId, event: name, organisationId, occurredAt, data } = event;
  return marshall(
    {
      pk: copy.pk,
      sk: 'EVENT',
      kind: 'outbox',
      eventId,
      event: name,
      organisationId,
      occurredAt,
      data,
      replays: copy.replays,
      timerPartition: keys.outboxByTime(outboxShard(eventId)),
      dueAt: copy.onStreamAt,
      expiresAt: copy.expiresAt ?? Math.floor(Date.parse(occurredAt) / 1000) + OUTBOX_RETENTION_SECONDS,
    },
    { removeUndefinedValues: true },
  );
}

/**
 * Pages of one shard's outbox items put on the stream after `after` and at or before `until`,
 * oldest first (BETWEEN is inclusive: `after` is moved on by a millisecond).
 */
export async function* outboxPages(
  shard: number,
  after: Date,
  until: Date,
  pageSize: number,
): AsyncGenerator<OutboxItem[]> {
  if (until <= after) return;
  const pages = paginateQuery(
    { client: dynamodb(), pageSize },
    {
      TableName: tableName(),
      IndexName: TIMERS_INDEX,
      KeyConditionExpression: 'timerPartition = :partition AND dueAt BETWEEN :after AND :until',
      ExpressionAttributeValues: marshall({
        ':partition': keys.outboxByTime(shard),
        ':after': new Date(after.getTime() + 1).toISOString(),
        ':until': until.toISOString(),
      }),
    },
  );
  for await (const page of pages) {
    const items = (page.Items ?? []).map((raw) => {
      const item = unmarshall(raw);
      const { eventId, event, organisationId, occurredAt, data } = item as DomainEvent;
      return {
        event: { eventId, event, organisationId, occurredAt, data },
        replays: Number(item.replays ?? 0),
        onStreamAt: String(item.dueAt),
      };
    });
    if (items.length > 0) yield items;
  }
}
