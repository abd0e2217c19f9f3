import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { TIMERS_FUNCTION } from '../../../shared/topology/routes.js';
import { TIMERS_FUNCTION_TIMEOUT_SECONDS } from '../../../shared/topology/timeouts.js';
import type { GrantAccess } from '../grants.js';
import type { StageSettings } from '../stage.js';
import { ServiceFunction } from './service-function.js';

export interface TimerScheduleProps {
  settings: StageSettings;
  environment: Record<string, string>;
  grant: GrantAccess;
}

/** How often due timers are fired on AWS: the deadline alarm and file expiries go within a minute. */
export const TIMER_SCHEDULE_MINUTES = 1;

/**
 * The timers function on a schedule: every minute it fires what is due in the table's sparse
 * `timers` index (incident deadline alarms, file expiries) into the outbox.
 */
export class TimerSchedule extends Construct {
  readonly timers: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: TimerScheduleProps) {
    super(scope, id);
    this.timers = new ServiceFunction(this, 'Function', {
      name: TIMERS_FUNCTION,
      settings: props.settings,
      environment: props.environment,
      // Within the minute between runs; the function stops taking new pages 10 s before this.
      timeout: Duration.seconds(TIMERS_FUNCTION_TIMEOUT_SECONDS),
    });
    props.grant(this.timers);
    this.rule = new Rule(this, 'Schedule', {
      description: 'Fires due timers: incident deadline alarms and file expiries',
      schedule: Schedule.rate(Duration.minutes(TIMER_SCHEDULE_MINUTES)),
      // A run that is missed or fails leaves its timers due for the next one: no retries needed.
      targets: [
        new LambdaFunction(this.timers.function, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
      ],
    });
    // The same for Lambda's own retries of a failed asynchronous invocation.
    this.timers.function.configureAsyncInvoke({ retryAttempts: 0 });
  }
}
