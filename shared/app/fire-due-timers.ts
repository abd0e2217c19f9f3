import { marshall } from '@aws-sdk/util-dynamodb';
import { tableName } from '../adapters/dynamodb.js';
import { getIncident } from '../adapters/incident-store.js';
import { keys } from '../adapters/keys.js';
import { outboxWrite } from '../adapters/outbox.js';
import { FileAlreadyExpiredError, fileExpiredWrite } from '../adapters/sanctuary-file-store.js';
import { dueTimerPages, TimerGoneError, timerFiredWrite } from '../adapters/timer-store.js';
import { commitTransaction, type TransactionItem } from '../adapters/transaction.js';
import { isTransactionConflict } from '../adapters/transaction-retry.js';
import { type Incident, incidentEventData, isOpenForNotification } from '../domain/incident.js';
import { fileExpiredEventData } from '../domain/sanctuary-file.js';
import { TIMER_EVENTS, type Timer, type TimerKind } from '../domain/timer.js';
import { newDomainEvent } from '../domain/webhook-events.js';
import { logger } from '../observability.js';

/**
 * What one run did with the timers that were due: `fired` raised their event; `dropped` had
 * nothing left to raise (the incident was no longer open); `alreadyGone` were fired or cancelled
 * by someone else first; `deferred` met a concurrent write and stay due for the next run.
 */
export interface TimerRun {
  due: number;
  fired: number;
  dropped: number;
  alreadyGone: number;
  deferred: number;
  failed: number;
}

type Outcome = Exclude<keyof TimerRun, 'due'>;

export interface TimerRunOptions {
  /** The cut-off: timers with `dueAt <= now` are due. */
  now?: Date;
  /** Timers read and fired at a time. */
  pageSize?: number;
  /** Asked after each page; true stops the run (the invocation is near its timeout). The rest stays due. */
  outOfTime?: () => boolean;
}

class IncidentChangedError extends Error {}

/** The alarm commits only if the incident is still the open one it was built from. */
function incidentUnchanged(incident: Incident): TransactionItem {
  return {
    write: {
      ConditionCheck: {
        TableName: tableName(),
        Key: marshall(keys.incident(incident.organisationId, incident.id)),
        ConditionExpression: '#version = :version AND #status IN (:declared, :contained)',
        ExpressionAttributeNames: { '#version': 'version', '#status': 'status' },
        ExpressionAttributeValues: marshall({
          ':version': incident.version,
          ':declared': 'declared',
          ':contained': 'contained',
        }),
      },
    },
    onConditionFailed: () => new IncidentChangedError(),
  };
}

/** A move between reading the incident and writing the alarm is retried from a fresh read this often. */
const INCIDENT_READS = 3;

async function raiseDeadlineAlarm(timer: Timer): Promise<Outcome> {
  for (let read = 1; read <= INCIDENT_READS; read++) {
    const incident = await getIncident(timer.organisationId, timer.resourceId);
    const at = new Date();
    if (!incident || !isOpenForNotification(incident)) {
      const droppedBecause = incident ? `incident ${incident.status}` : 'incident not found';
      await commitTransaction([timerFiredWrite(timer, at, { droppedBecause })]);
      return 'dropped';
    }
    const alarm = newDomainEvent(
      TIMER_EVENTS[timer.kind],
      timer.organisationId,
      incidentEventData(incident),
      at,
    );
    try {
      await commitTransaction([
        timerFiredWrite(timer, at, { eventId: alarm.eventId }),
        incidentUnchanged(incident),
        outboxWrite(alarm),
      ]);
      return 'fired';
    } catch (error) {
      if (!(error instanceof IncidentChangedError)) throw error;
    }
  }
  return 'deferred';
}

async function expireFile(timer: Timer): Promise<Outcome> {
  const at = new Date();
  const data = fileExpiredEventData(timer.resourceId, timer.dueAt, at.toISOString());
  const expired = newDomainEvent(TIMER_EVENTS[timer.kind], timer.organisationId, data, at);
  try {
    await commitTransaction([
      timerFiredWrite(timer, at, { eventId: expired.eventId }),
      fileExpiredWrite(timer.organisationId, timer.resourceId, at),
      outboxWrite(expired),
    ]);
    return 'fired';
  } catch (error) {
    if (!(error instanceof FileAlreadyExpiredError)) throw error;
    await commitTransaction([timerFiredWrite(timer, at, { droppedBecause: 'file not found or expired' })]);
    return 'dropped';
  }
}

/** What firing each kind of timer does; a new kind does not compile until it is listed. */
const FIRE: Record<TimerKind, (timer: Timer) => Promise<Outcome>> = {
  'incident-deadline': raiseDeadlineAlarm,
  'file-expiry': expireFile,
};

async function fire(timer: Timer): Promise<Outcome> {
  const context = {
    timerKind: timer.kind,
    organisationId: timer.organisationId,
    resourceId: timer.resourceId,
  };
  try {
    const outcome = await FIRE[timer.kind](timer);
    logger.info('Timer handled', { ...context, dueAt: timer.dueAt, outcome });
    return outcome;
  } catch (error) {
    if (error instanceof TimerGoneError) return 'alreadyGone';
    if (isTransactionConflict(error)) return 'deferred';
    logger.error('Timer failed; it stays due for the next run', { ...context, error });
    return 'failed';
  }
}

/**
 * Fires every timer due at `now`, page by page. A timer fires in one transaction that takes it out
 * of the sparse index on condition that it is still there and writes its outbox event, so two runs
 * that overlap fire it once; a run that fails leaves it due for the next.
 */
export async function fireDueTimers(options: TimerRunOptions = {}): Promise<TimerRun> {
  const now = options.now ?? new Date();
  const run: TimerRun = { due: 0, fired: 0, dropped: 0, alreadyGone: 0, deferred: 0, failed: 0 };
  for await (const page of dueTimerPages(now, options.pageSize ?? 25)) {
    run.due += page.length;
    for (const outcome of await Promise.all(page.map(fire))) run[outcome] += 1;
    if (options.outOfTime?.()) break;
  }
  return run;
}
