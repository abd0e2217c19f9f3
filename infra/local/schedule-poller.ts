import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/observability.js';
import { TIMERS_FUNCTION } from '../../shared/topology/routes.js';
import { TIMERS_FUNCTION_TIMEOUT_SECONDS } from '../../shared/topology/timeouts.js';
import { lambdaContext } from './lambda-context.js';
import { LocalStackError } from './local-stack-error.js';

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface SchedulePollerOptions {
  intervalSeconds: number;
  handler: ScheduledHandler;
  functionName: string;
  timeoutSeconds: number;
}

export interface SchedulePoller {
  /** Stops scheduling and waits for the run in progress. */
  stop(): Promise<void>;
}

/** `TIMER_INTERVAL_SECONDS` (default 5): how often the local stack fires due timers. */
export function timerIntervalSeconds(value = process.env.TIMER_INTERVAL_SECONDS): number {
  if (value === undefined || value === '') return 5;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new LocalStackError(
      `TIMER_INTERVAL_SECONDS must be a number of seconds above 0 and at most 3600; got "${value}".`,
    );
  }
  return seconds;
}

/** An EventBridge "Scheduled Event" as the schedule rule delivers it (the time without milliseconds). */
export function scheduledEvent(ruleName: string, at = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'local',
    resources: [`arn:aws:events:local:000000000000:rule/${ruleName}`],
    detail: {},
  };
}

/**
 * The local stand-in for the schedule rule: invokes the handler with a Scheduled Event every
 * interval. The first run is at once, so that what fell due while the stack was down fires right
 * after a start; a run never overlaps the previous one here (on AWS runs may overlap, which the
 * timers tolerate).
 */
export function startSchedulePoller(options: SchedulePollerOptions): SchedulePoller {
  let stopped = false;
  let next: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const run = async () => {
    try {
      await options.handler(
        scheduledEvent(`${options.functionName}-schedule`),
        lambdaContext(options.functionName, options.timeoutSeconds * 1000),
      );
    } catch (error) {
      logger.error('The scheduled function failed; it runs again at the next interval', {
        error,
        functionName: options.functionName,
      });
    }
  };
  const tick = () => {
    running = run().finally(() => {
      running = undefined;
      if (!stopped) next = setTimeout(tick, options.intervalSeconds * 1000);
    });
  };
  tick();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(next);
      await running;
    },
  };
}

/** The timers function's schedule, as the CDK's rule but every TIMER_INTERVAL_SECONDS. */
export function startTimerSchedule(handler: ScheduledHandler): SchedulePoller {
  return startSchedulePoller({
    intervalSeconds: timerIntervalSeconds(),
    handler,
    functionName: TIMERS_FUNCTION,
    timeoutSeconds: TIMERS_FUNCTION_TIMEOUT_SECONDS,
  });
}
