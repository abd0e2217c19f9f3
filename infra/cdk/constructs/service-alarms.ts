import { Duration } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  AlarmWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DeliveryOutcome } from '../../../shared/domain/delivery-attempt.js';
import { MAX_DELIVERY_ATTEMPTS } from '../../../shared/domain/retry-schedule.js';
import {
  FAILED_OUTCOME,
  METRIC,
  METRICS_NAMESPACE,
  OUTCOME_DIMENSION,
  SERVICE_NAME,
  STAGE_DIMENSION,
} from '../../../shared/topology/metrics.js';
import type { StageSettings } from '../stage.js';

export interface ServiceAlarmsProps {
  settings: StageSettings;
  /** Deliveries that failed every attempt. */
  deliveryDeadLetterQueue: IQueue;
  /** Deliveries EventBridge could not put on the delivery queue. */
  ruleDeadLetterQueue: IQueue;
  relayFunction: IFunction;
  apiStage: Stage;
}

/** The delivery failure rate: over 25 % of attempts failing for two quarters of an hour running. */
export const DELIVERY_FAILURE_RATE = { percent: 25, periodMinutes: 15, periods: 2, minimumAttempts: 5 };
/** The API's 5xx rate: over 5 % of requests for two five-minute periods running. */
export const API_5XX_RATE = { percent: 5, periodMinutes: 5, periods: 2, minimumRequests: 20 };
/** The relay is stuck when the stream's oldest unrelayed record is this old for three minutes. */
export const RELAY_ITERATOR_AGE = { milliseconds: 5 * 60 * 1000, periods: 3 };

/**
 * Any delivery overdue past its next attempt (the timers function counts them every minute), in two
 * 5-minute periods running: a single count can catch a retry that is just being taken.
 */
export const STUCK_DELIVERIES = { periodMinutes: 5, periods: 2 };

/**
 * The outbox sweep failed (a replay, or the run as a whole) in three of five minutes (it runs every
 * minute, but two runs can land in one minute and leave the next empty): one failed run is a
 * throttle the next run retries; three mean the events the stream lost wait, undelivered.
 */
export const OUTBOX_REPLAY_FAILURES = { periodMinutes: 1, periods: 5, datapoints: 3 };

/**
 * What tells an operator that something needs them: an alarm for each way a webhook can be lost or
 * late and for the API failing, each notifying the alarm topic, and one dashboard with them all.
 * README's "Alarms" section says what each means and what to do.
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly topicKey: Key;
  readonly alarms: readonly Alarm[];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { settings } = props;

    // CloudWatch encrypts what it publishes to an encrypted topic with the topic's key, as itself: the
    // AWS-managed alias/aws/sns key does not let it, so alarms would fire and notify no one.
    this.topicKey = new Key(this, 'TopicKey', {
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish alarms',
      enableKeyRotation: true,
      removalPolicy: settings.removalPolicy,
    });
    this.topicKey.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'Topic', { enforceSSL: true, masterKey: this.topicKey });
    this.topic.applyRemovalPolicy(settings.removalPolicy);

    const serviceMetric = (
      metricName: string,
      statistic: string,
      period: Duration,
      dimensions: Record<string, string> = {},
    ) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: SERVICE_NAME, [STAGE_DIMENSION]: settings.stage, ...dimensions },
        statistic,
        period,
      });
    const attemptsBy = (outcome: DeliveryOutcome, period: Duration) =>
      serviceMetric(METRIC.deliveryAttempts, 'Sum', period, { [OUTCOME_DIMENSION]: outcome });
    const outcomes = Object.keys(FAILED_OUTCOME) as DeliveryOutcome[];

    const deadLetters = new Alarm(this, 'DeadLettersAlarm', {
      alarmDescription: `Webhook deliveries failed ${MAX_DELIVERY_ATTEMPTS} times and wait in the dead-letter queue (mis dlq list).`,
      metric: props.deliveryDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const ruleDeadLetters = new Alarm(this, 'RuleDeadLettersAlarm', {
      alarmDescription:
        'EventBridge could not put deliveries on the delivery queue; they wait in the rule target dead-letter queue.',
      metric: props.ruleDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const relayStuck = new Alarm(this, 'RelayIteratorAgeAlarm', {
      alarmDescription: 'The outbox relay is more than five minutes behind the table stream.',
      metric: props.relayFunction.metric('IteratorAge', {
        statistic: 'Maximum',
        period: Duration.minutes(1),
      }),
      threshold: RELAY_ITERATOR_AGE.milliseconds,
      evaluationPeriods: RELAY_ITERATOR_AGE.periods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    // A handful of attempts is too few for a rate: one failure in two would page someone.
    const failurePeriod = Duration.minutes(DELIVERY_FAILURE_RATE.periodMinutes);
    const failedIds = outcomes.filter((outcome) => FAILED_OUTCOME[outcome]);
    const deliveryFailureRate = new MathExpression({
      label: 'Delivery failure rate (%)',
      expression: `IF(attempts >= ${DELIVERY_FAILURE_RATE.minimumAttempts}, 100 * (${failedIds
        .map((outcome) => `FILL(${outcome}, 0)`)
        .join(' + ')}) / attempts, 0)`,
      usingMetrics: {
        attempts: serviceMetric(METRIC.deliveryAttempts, 'Sum', failurePeriod),
        // The outcomes are snake_case, which metric math accepts as ids.
        ...Object.fromEntries(failedIds.map((outcome) => [outcome, attemptsBy(outcome, failurePeriod)])),
      },
      period: failurePeriod,
    });
    const deliveriesFailing = new Alarm(this, 'DeliveryFailureRateAlarm', {
      alarmDescription: `More than ${DELIVERY_FAILURE_RATE.percent} % of webhook delivery attempts failed, for ${DELIVERY_FAILURE_RATE.periods * DELIVERY_FAILURE_RATE.periodMinutes} minutes.`,
      metric: deliveryFailureRate,
      threshold: DELIVERY_FAILURE_RATE.percent,
      evaluationPeriods: DELIVERY_FAILURE_RATE.periods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const apiPeriod = Duration.minutes(API_5XX_RATE.periodMinutes);
    const api5xxRate = new MathExpression({
      label: 'API 5xx rate (%)',
      expression: `IF(requests >= ${API_5XX_RATE.minimumRequests}, 100 * errors / requests, 0)`,
      usingMetrics: {
        errors: props.apiStage.metricServerError({ statistic: 'Sum', period: apiPeriod }),
        requests: props.apiStage.metricCount({ statistic: 'Sum', period: apiPeriod }),
      },
      period: apiPeriod,
    });
    const apiFailing = new Alarm(this, 'Api5xxRateAlarm', {
      alarmDescription: `More than ${API_5XX_RATE.percent} % of API requests answered 5xx, for ${API_5XX_RATE.periods * API_5XX_RATE.periodMinutes} minutes.`,
      metric: api5xxRate,
      threshold: API_5XX_RATE.percent,
      evaluationPeriods: API_5XX_RATE.periods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const deliveriesStuck = new Alarm(this, 'StuckDeliveriesAlarm', {
      alarmDescription:
        'Webhook deliveries are past their next attempt by more than five minutes (mis deliveries stuck).',
      metric: serviceMetric(
        METRIC.stuckDeliveries,
        'Maximum',
        Duration.minutes(STUCK_DELIVERIES.periodMinutes),
      ),
      threshold: 1,
      evaluationPeriods: STUCK_DELIVERIES.periods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const replaysFailing = new Alarm(this, 'OutboxReplayFailuresAlarm', {
      alarmDescription:
        'The outbox sweep could not put unrelayed events back on the stream in three of five minutes (mis outbox overdue).',
      metric: serviceMetric(
        METRIC.outboxReplayFailures,
        'Sum',
        Duration.minutes(OUTBOX_REPLAY_FAILURES.periodMinutes),
      ),
      threshold: 1,
      evaluationPeriods: OUTBOX_REPLAY_FAILURES.periods,
      datapointsToAlarm: OUTBOX_REPLAY_FAILURES.datapoints,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.alarms = [
      deadLetters,
      ruleDeadLetters,
      relayStuck,
      deliveriesFailing,
      apiFailing,
      deliveriesStuck,
      replaysFailing,
    ];
    for (const alarm of this.alarms) alarm.addAlarmAction(new SnsAction(this.topic));

    const graphPeriod = Duration.minutes(5);
    const graph = (title: string, left: IMetric[], unit?: string) =>
      new GraphWidget({
        title,
        left,
        width: 8,
        ...(unit ? { leftYAxis: { label: unit, showUnits: false } } : {}),
      });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `MembershipIncidentService-${settings.stage}`,
      defaultInterval: Duration.hours(6),
      widgets: [
        [new AlarmStatusWidget({ title: 'Alarms', alarms: [...this.alarms], width: 24 })],
        // Three widgets of width 8 to a row.
        this.alarms.slice(0, 3).map((alarm) => new AlarmWidget({ alarm, width: 8 })),
        this.alarms.slice(3, 6).map((alarm) => new AlarmWidget({ alarm, width: 8 })),
        [
          ...this.alarms.slice(6).map((alarm) => new AlarmWidget({ alarm, width: 8 })),
          graph(
            'Delivery attempts by outcome',
            outcomes.map((outcome) => attemptsBy(outcome, graphPeriod).with({ label: outcome })),
          ),
          graph('Outbox sweep', [
            serviceMetric(METRIC.outboxReplays, 'Sum', graphPeriod).with({
              label: 'put back on the stream (no relay receipt)',
            }),
            serviceMetric(METRIC.outboxReplayFailures, 'Sum', graphPeriod).with({ label: 'replay failed' }),
          ]),
        ],
        [
          graph(
            'Delivery latency',
            ['p50', 'p99'].map((statistic) =>
              serviceMetric(METRIC.deliveryLatency, statistic, graphPeriod).with({ label: statistic }),
            ),
            'ms',
          ),
          graph(
            'Relay lag (outbox item to event bus)',
            ['p50', 'Maximum'].map((statistic) =>
              serviceMetric(METRIC.relayLag, statistic, graphPeriod).with({ label: statistic }),
            ),
            'ms',
          ),
          graph('Deliveries waiting', [
            serviceMetric(METRIC.stuckDeliveries, 'Maximum', graphPeriod).with({ label: 'stuck (overdue)' }),
            serviceMetric(METRIC.deliveriesDelayed, 'Sum', graphPeriod).with({
              label: 'sent back (endpoint limited)',
            }),
          ]),
          graph('Refusals', [
            serviceMetric(METRIC.rateLimitRefusals, 'Sum', graphPeriod).with({ label: 'rate limited (429)' }),
            serviceMetric(METRIC.authorizerDenials, 'Sum', graphPeriod).with({
              label: 'token refused (401)',
            }),
          ]),
        ],
      ],
    });
  }
}
