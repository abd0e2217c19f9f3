import type { Context, ScheduledEvent } from 'aws-lambda';
import { fireDueTimers, type TimerRun } from '../../shared/app/fire-due-timers.js';
import { countStuckDeliveries } from '../../shared/app/stuck-deliveries.js';
import { type OutboxSweep, sweepUnrelayedOutbox } from '../../shared/app/sweep-outbox.js';
import { logger, MetricUnit, publishMetrics } from '../../shared/observability.js';
import { METRIC } from '../../shared/topology/metrics.js';

/**
 * Publishes how many deliveries are stuck (their next attempt overdue) every run, 0 included, so
 * that the alarm sees data; a failed count is logged, never allowed to stop the timers.
 */
async function reportStuckDeliveries(event: ScheduledEvent): Promise<void> {
  try {
    const stuck = await countStuckDeliveries();
    publishMetrics((metrics) => metrics.addMetric(METRIC.stuckDeliveries, MetricUnit.Count, stuck));
    if (stuck > 0)
      logger.warn('Deliveries stuck past their next attempt', { stuck, scheduledAt: event.time });
  } catch (error) {
    logger.error('Counting stuck deliveries failed', { error });
  }
}

/**
 * Sweeps the outbox and publishes its replays and failures every run, 0 included, so that the
 * alarm sees data: a sweep that fails as a whole (its reads, its checkpoint) counts as one failure.
 * Answers whether it failed as a whole; the other timers' work goes on regardless.
 */
async function sweepOutbox(event: ScheduledEvent, context: Context): Promise<boolean> {
  let sweep: OutboxSweep;
  let sweepFailed = false;
  try {
    sweep = await sweepUnrelayedOutbox({
      outOfTime: () => context.getRemainingTimeInMillis() < SAFETY_MARGIN_MS,
    });
    if (sweep.overdue > 0 || sweep.failed > 0)
      logger.warn('Outbox sweep', { ...sweep, scheduledAt: event.time });
  } catch (error) {
    logger.error('Outbox sweep failed', { error });
    sweep = { overdue: 0, replayed: 0, failed: 1 };
    sweepFailed = true;
  }
  publishMetrics((metrics) => {
    metrics.addMetric(METRIC.outboxReplays, MetricUnit.Count, sweep.replayed);
    metrics.addMetric(METRIC.outboxReplayFailures, MetricUnit.Count, sweep.failed);
  });
  return sweepFailed;
}

/** Stop taking new pages this long before the timeout; what is left is due for the next run. */
const SAFETY_MARGIN_MS = 10_000;

/**
 * Runs on a schedule (every minute on AWS, every TIMER_INTERVAL_SECONDS locally): fires the incident
 * deadline alarms and file expiries that are due, and puts outbox items the relay left unrelayed
 * past the threshold back on the stream, and counts stuck deliveries. Runs may overlap; each timer
 * still fires once. A failed job fails the invocation (the Errors metric), after the others ran.
 */
export async function handler(event: ScheduledEvent, context: Context): Promise<TimerRun> {
  // The three jobs are independent: one failing must not keep the others from their run.
  const run = await fireDueTimers({
    now: new Date(),
    outOfTime: () => context.getRemainingTimeInMillis() < SAFETY_MARGIN_MS,
  }).catch((error: unknown) => {
    logger.error('Timers run failed', { error });
    return undefined;
  });
  if (run && run.due > 0) logger.info('Timers run', { ...run, scheduledAt: event.time });
  const sweepFailed = await sweepOutbox(event, context);
  await reportStuckDeliveries(event);
  // Reported as a failed invocation so that the Errors metric shows it; the timers stay due.
  if (!run) throw new Error('The timers run failed');
  if (run.failed > 0) throw new Error(`${run.failed} of ${run.due} due timers failed`);
  if (sweepFailed) throw new Error('The outbox sweep failed');
  return run;
}
