import type { Context, ScheduledEvent } from 'aws-lambda';
import { fireDueTimers, type TimerRun } from '../../shared/app/fire-due-timers.js';
import { sweepUnrelayedOutbox } from '../../shared/app/sweep-outbox.js';
import { logger } from '../../shared/observability.js';

/** Stop taking new pages this long before the timeout; what is left is due for the next run. */
const SAFETY_MARGIN_MS = 10_000;

/**
 * Runs on a schedule (every minute on AWS, every TIMER_INTERVAL_SECONDS locally): fires the incident
 * deadline alarms and file expiries that are due, and puts outbox items the relay left unrelayed
 * past the threshold back on the stream. Runs may overlap; each timer still fires once.
 */
export async function handler(event: ScheduledEvent, context: Context): Promise<TimerRun> {
  const run = await fireDueTimers({
    now: new Date(),
    outOfTime: () => context.getRemainingTimeInMillis() < SAFETY_MARGIN_MS,
  });
  if (run.due > 0) logger.info('Timers run', { ...run, scheduledAt: event.time });
  const sweep = await sweepUnrelayedOutbox({
    outOfTime: () => context.getRemainingTimeInMillis() < SAFETY_MARGIN_MS,
  });
  if (sweep.overdue > 0) logger.warn('Outbox sweep', { ...sweep, scheduledAt: event.time });
  // Reported as a failed invocation so that the Errors metric shows it; the timers stay due.
  if (run.failed > 0) throw new Error(`${run.failed} of ${run.due} due timers failed`);
  return run;
}
