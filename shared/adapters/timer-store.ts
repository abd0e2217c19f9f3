import { paginateQuery } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Incident } from '../domain/incident.js';
import { isOpenForNotification } from '../domain/incident.js';
import { deadlineTimer, TIMER_SHARDS, type Timer, type TimerKind, timerShard } from '../domain/timer.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import type { TransactionItem } from './transaction.js';

/** The sparse index of `shared/topology/table.ts`: partition `timerPartition`, sort `dueAt`. */
export const TIMERS_INDEX = 'timers';

/** A timer sits beside what it is due for; a new kind must say where. */
const TIMER_KEYS = {
  'incident-deadline': keys.incidentDeadlineTimer,
  'file-expiry': keys.fileExpiryTimer,
} satisfies Record<TimerKind, (organisationId: string, resourceId: string) => { pk: string; sk: string }>;

function timerKey(timer: Pick<Timer, 'kind' | 'organisationId' | 'resourceId'>) {
  return TIMER_KEYS[timer.kind](timer.organisationId, timer.resourceId);
}

/**
 * A pending timer, written in the transaction that creates what it is for. Its `timerPartition`
 * puts it in the sparse index; firing removes that attribute, and with it the timer from the index.
 */
export function timerWrite(timer: Timer, now: Date): TransactionItem {
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: marshall({
          ...timerKey(timer),
          kind: 'timer',
          timerKind: timer.kind,
          organisationId: timer.organisationId,
          resourceId: timer.resourceId,
          dueAt: timer.dueAt,
          timerPartition: keys.dueTimers(timerShard(timer.resourceId)),
          createdAt: now.toISOString(),
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

export function deadlineTimerWrite(incident: Incident, now: Date): TransactionItem {
  return timerWrite(deadlineTimer(incident), now);
}

/**
 * Once an incident is notified or closed its alarm must never go: the move's transaction deletes
 * the timer. Unconditional, so that a move never fails on a timer that fired or never existed.
 */
export function deadlineTimerCancellations(incident: Incident): TransactionItem[] {
  if (isOpenForNotification(incident)) return [];
  return [
    {
      write: {
        Delete: {
          TableName: tableName(),
          Key: marshall(keys.incidentDeadlineTimer(incident.organisationId, incident.id)),
        },
      },
    },
  ];
}

/** Another run fired the timer first, or it was cancelled: nothing is left to do. */
export class TimerGoneError extends Error {}

/**
 * Takes the timer out of the sparse index, on the condition that it is still in it. In the same
 * transaction as the outbox event, this is what makes a timer fire once however many runs race.
 */
export function timerFiredWrite(
  timer: Timer,
  at: Date,
  outcome: { eventId: string } | { droppedBecause: string },
): TransactionItem {
  const [recorded, value] =
    'eventId' in outcome ? ['eventId', outcome.eventId] : ['droppedBecause', outcome.droppedBecause];
  return {
    write: {
      Update: {
        TableName: tableName(),
        Key: marshall(timerKey(timer)),
        UpdateExpression: `REMOVE timerPartition SET firedAt = :at, ${recorded} = :outcome`,
        ConditionExpression: 'timerPartition = :partition',
        ExpressionAttributeValues: marshall({
          ':at': at.toISOString(),
          ':outcome': value,
          ':partition': keys.dueTimers(timerShard(timer.resourceId)),
        }),
      },
    },
    onConditionFailed: () => new TimerGoneError(),
  };
}

/**
 * Pages of the timers due at `now`, shard by shard: Queries on the sparse index with `dueAt <= now`,
 * so a run reads what is due and never the incidents or files that are not.
 */
export async function* dueTimerPages(now: Date, pageSize: number): AsyncGenerator<Timer[]> {
  for (let shard = 0; shard < TIMER_SHARDS; shard++) {
    const pages = paginateQuery(
      { client: dynamodb(), pageSize },
      {
        TableName: tableName(),
        IndexName: TIMERS_INDEX,
        KeyConditionExpression: 'timerPartition = :partition AND dueAt <= :now',
        ExpressionAttributeValues: marshall({
          ':partition': keys.dueTimers(shard),
          ':now': now.toISOString(),
        }),
      },
    );
    for await (const page of pages) {
      const timers = (page.Items ?? []).map((raw) => {
        const item = unmarshall(raw);
        return {
          kind: item.timerKind,
          organisationId: String(item.organisationId),
          resourceId: String(item.resourceId),
          dueAt: String(item.dueAt),
        } as Timer;
      });
      if (timers.length > 0) yield timers;
    }
  }
}
