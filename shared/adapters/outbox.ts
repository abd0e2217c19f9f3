import { paginateQuery } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DomainEvent } from '../domain/webhook-events.js';
import { logger } from '../observability.js';
import { putItems } from './batch-put.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import { TIMERS_INDEX } from './timer-store.js';
import type { TransactionItem } from './transaction.js';

/** Outbox items are relayed within seconds; a week's margin before TTL may drop them. */
const OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;

const expiresAtOf = (event: DomainEvent) =>
  Math.floor(Date.parse(event.occurredAt) / 1000) + OUTBOX_RETENTION_SECONDS;

/** Unrelayed outbox items are spread over a few partitions of the sparse index, as timers are. */
export const UNRELAYED_SHARDS = 4;

function unrelayedShard(eventId: string): number {
  return (Number.parseInt(eventId.slice(0, 2), 16) || 0) % UNRELAYED_SHARDS;
}

/**
 * The outbox item is the source of truth for an event: the stream keeps a record 24 hours, the
 * item 7 days. Until the relay marks it relayed it sits in the sparse `timers` index (under its
 * own partitions, sorted by when it occurred), where the sweep finds what the stream lost or
 * could not relay.
 */
export function outboxWrite(event: DomainEvent): TransactionItem {
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: outboxItem(event, {
          timerPartition: keys.unrelayedOutbox(unrelayedShard(event.eventId)),
          dueAt: event.occurredAt,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/**
 * Takes relayed items out of the sparse index: each outbox item is written again whole, without its
 * index attributes and with `relayedAt`, 25 to a BatchWriteItem (a MODIFY, which the stream filter
 * does not pass). A whole put rather than an update, because only BatchWriteItem takes many items
 * in one call; the relay has the whole event from the stream. A mark that fails only means the
 * sweep publishes the event again later, with the same delivery ids: a duplicate the subscriber
 * drops, never a loss; so it is logged, not thrown.
 */
export async function markRelayed(events: readonly DomainEvent[], at = new Date()): Promise<void> {
  try {
    await putItems(events.map((event) => relayedItem(event, at)));
  } catch (error) {
    logger.warn('Some relayed outbox items could not be marked; the sweep will publish them again', {
      events: events.length,
      error,
    });
  }
}

/** The outbox item of an event once relayed: what `outboxWrite` stored, out of the sweep's index. */
const relayedItem = (event: DomainEvent, at: Date) => outboxItem(event, { relayedAt: at.toISOString() });

/** The one shape of an event's outbox item, with what its state adds (index attributes, or relayedAt). */
function outboxItem(event: DomainEvent, state: Record<string, string>) {
  const { eventId, event: name, organisationId, occurredAt, data } = event;
  return marshall(
    {
      pk: `OUTBOX#${eventId}`,
      sk: 'EVENT',
      kind: 'outbox',
      eventId,
      event: name,
      organisationId,
      occurredAt,
      data,
      expiresAt: expiresAtOf(event),
      ...state,
    },
    { removeUndefinedValues: true },
  );
}

/** An unrelayed outbox item, with how often the sweep has put it back on the stream. */
export interface UnrelayedOutboxItem {
  event: DomainEvent;
  replays: number;
  /** When it entered the sparse index: its occurrence, or its last replay. */
  pendingSince: string;
}

/**
 * Puts an unrelayed event back on the stream: a new outbox item (another key, so on AWS most
 * likely another shard than a poison record blocking the original's) carrying the same event, so
 * the relay fans it out with the same delivery ids. The original stays in the index, its clock
 * restarted, until the relay marks it: a relay that still fails gets the event again only after
 * another threshold. Conditional on the original still being unrelayed.
 */
export function outboxReplayWrites(item: UnrelayedOutboxItem, at: Date): TransactionItem[] {
  const { event } = item;
  const replay = item.replays + 1;
  return [
    {
      write: {
        Update: {
          TableName: tableName(),
          Key: marshall({ pk: `OUTBOX#${event.eventId}`, sk: 'EVENT' }),
          UpdateExpression: 'SET dueAt = :at, replays = :replay',
          ConditionExpression: 'attribute_exists(timerPartition)',
          ExpressionAttributeValues: marshall({ ':at': at.toISOString(), ':replay': replay }),
        },
      },
    },
    {
      write: {
        Put: {
          TableName: tableName(),
          Item: marshall(
            {
              pk: `OUTBOX#${event.eventId}#REPLAY#${replay}`,
              sk: 'EVENT',
              kind: 'outbox',
              ...event,
              expiresAt: Math.floor(at.getTime() / 1000) + OUTBOX_RETENTION_SECONDS,
            },
            { removeUndefinedValues: true },
          ),
        },
      },
    },
  ];
}

/** Pages of outbox items not marked relayed that occurred at or before `before`, oldest first per shard. */
export async function* unrelayedOutboxPages(
  before: Date,
  pageSize: number,
): AsyncGenerator<UnrelayedOutboxItem[]> {
  for (let shard = 0; shard < UNRELAYED_SHARDS; shard++) {
    const pages = paginateQuery(
      { client: dynamodb(), pageSize },
      {
        TableName: tableName(),
        IndexName: TIMERS_INDEX,
        KeyConditionExpression: 'timerPartition = :partition AND dueAt <= :before',
        ExpressionAttributeValues: marshall({
          ':partition': keys.unrelayedOutbox(shard),
          ':before': before.toISOString(),
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
          pendingSince: String(item.dueAt),
        };
      });
      if (items.length > 0) yield items;
    }
  }
}
