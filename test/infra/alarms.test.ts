import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  API_5XX_RATE,
  DELIVERY_FAILURE_RATE,
  RELAY_ITERATOR_AGE,
  STUCK_DELIVERIES,
} from '../../infra/cdk/constructs/service-alarms.js';
import {
  METRIC,
  METRICS_NAMESPACE,
  OUTCOME_DIMENSION,
  SERVICE_NAME,
  STAGE_DIMENSION,
} from '../../shared/topology/metrics.js';
import { arnTarget, type Resource, settingsOnlyTemplate, templateLookups } from '../support/template.js';

let template: Template;

beforeAll(() => {
  template = settingsOnlyTemplate('dev');
});

const { resources, functionId } = templateLookups(() => template);

type Statement = { Effect: string; Principal?: unknown; Action: string | string[]; Resource: unknown };

/** The one resource of a type whose logical id matches, with its id. */
function resourceMatching(type: string, id: RegExp): [string, Resource] {
  const found = Object.entries(resources(type)).filter(([logicalId]) => id.test(logicalId));
  expect(
    found.map(([logicalId]) => logicalId),
    `${type} ${id}`,
  ).toHaveLength(1);
  return found[0] as [string, Resource];
}

const alarm = (constructId: string) =>
  resourceMatching('AWS::CloudWatch::Alarm', new RegExp(`^Alarms${constructId}[0-9A-F]{8}$`))[1].Properties;
const topicId = () => resourceMatching('AWS::SNS::Topic', /^AlarmsTopic/)[0];

/** The delivery queue's dead-letter queue: the target of its redrive policy. */
function deliveryDeadLetterQueueId(): string {
  const main = Object.values(resources('AWS::SQS::Queue')).find((q) => q.Properties.RedrivePolicy);
  return String(
    arnTarget(
      (main?.Properties.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined)?.deadLetterTargetArn,
    ),
  );
}

/** The dead-letter queue of the delivery rule's target. */
function ruleDeadLetterQueueId(): string {
  const rule = Object.values(resources('AWS::Events::Rule')).find((r) => r.Properties.EventPattern);
  const [target] = (rule?.Properties.Targets ?? []) as { DeadLetterConfig?: unknown }[];
  return String(arnTarget(target?.DeadLetterConfig));
}

const onTopic = () => ({ AlarmActions: [{ Ref: topicId() }] });
const serviceDimensions = [
  { Name: 'service', Value: SERVICE_NAME },
  { Name: STAGE_DIMENSION, Value: 'dev' },
];
const metricStat = (id: string, metricName: string, dimensions: unknown[], period: number) => ({
  Id: id,
  MetricStat: {
    Metric: { Namespace: METRICS_NAMESPACE, MetricName: metricName, Dimensions: dimensions },
    Period: period,
    Stat: 'Sum',
  },
  ReturnData: false,
});

describe('the alarm topic (fault 2: CloudWatch must be able to publish to it)', () => {
  it('is encrypted with a rotating customer-managed key, not the AWS-managed alias/aws/sns', () => {
    const [keyId, key] = resourceMatching('AWS::KMS::Key', /^AlarmsTopicKey/);
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(resources('AWS::SNS::Topic')[topicId()]?.Properties.KmsMasterKeyId).toEqual({
      'Fn::GetAtt': [keyId, 'Arn'],
    });
  });

  it("has a key policy that lets cloudwatch.amazonaws.com use the key, as SNS's key management guide asks", () => {
    const [, key] = resourceMatching('AWS::KMS::Key', /^AlarmsTopicKey/);
    const statements = (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement;
    const forCloudWatch = statements.filter(
      (s) => JSON.stringify(s.Principal) === JSON.stringify({ Service: 'cloudwatch.amazonaws.com' }),
    );
    expect(forCloudWatch).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Resource: '*',
      }),
    ]);
  });

  it('is where every alarm goes, and every alarm can reach it: its key lets CloudWatch in', () => {
    const alarms = Object.values(resources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(7);
    for (const { Properties } of alarms) {
      expect(Properties.AlarmActions).toEqual([{ Ref: topicId() }]);
      const topic = resources('AWS::SNS::Topic')[topicId()];
      const key = resources('AWS::KMS::Key')[String(arnTarget(topic?.Properties.KmsMasterKeyId))];
      const statements = (key?.Properties.KeyPolicy as { Statement: Statement[] } | undefined)?.Statement;
      expect(JSON.stringify(statements)).toContain('cloudwatch.amazonaws.com');
    }
    const [, topicPolicy] = resourceMatching('AWS::SNS::TopicPolicy', /^AlarmsTopicPolicy/);
    expect(topicPolicy.Properties).toMatchObject({
      Topics: [{ Ref: topicId() }],
      PolicyDocument: {
        Statement: [{ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }],
      },
    });
  });
});

describe('alarms', () => {
  it('delivery dead-letter queue not empty: any message, within a minute', () => {
    expect(alarm('DeadLettersAlarm')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [deliveryDeadLetterQueueId(), 'QueueName'] } },
      ],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      ...onTopic(),
    });
  });

  it('rule target dead-letter queue not empty: any message, within a minute', () => {
    expect(ruleDeadLetterQueueId()).not.toBe(deliveryDeadLetterQueueId());
    expect(alarm('RuleDeadLettersAlarm')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ruleDeadLetterQueueId(), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      ...onTopic(),
    });
  });

  it('relay iterator age: five minutes behind the table stream, three minutes running', () => {
    expect(RELAY_ITERATOR_AGE.milliseconds).toBe(5 * 60 * 1000);
    expect(alarm('RelayIteratorAgeAlarm')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId('outbox-relay') } }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 5 * 60 * 1000,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      ...onTopic(),
    });
  });

  it('stuck deliveries: any delivery past its next attempt, two 5-minute periods running', () => {
    expect(alarm('StuckDeliveriesAlarm')).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.stuckDeliveries,
      Dimensions: serviceDimensions,
      Statistic: 'Maximum',
      Period: STUCK_DELIVERIES.periodMinutes * 60,
      Threshold: 1,
      EvaluationPeriods: STUCK_DELIVERIES.periods,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      ...onTopic(),
    });
  });

  it('outbox replay failures: the sweep failed in three of five one-minute periods', () => {
    expect(alarm('OutboxReplayFailuresAlarm')).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.outboxReplayFailures,
      Dimensions: serviceDimensions,
      Statistic: 'Sum',
      Period: 60,
      Threshold: 1,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      ...onTopic(),
    });
  });

  it('delivery failure rate: failed and retried attempts over all attempts, from the delivery metrics', () => {
    const period = DELIVERY_FAILURE_RATE.periodMinutes * 60;
    const byOutcome = (outcome: string) => [
      { Name: OUTCOME_DIMENSION, Value: outcome },
      ...serviceDimensions,
    ];
    const properties = alarm('DeliveryFailureRateAlarm');
    expect(properties).toMatchObject({
      Threshold: DELIVERY_FAILURE_RATE.percent,
      EvaluationPeriods: DELIVERY_FAILURE_RATE.periods,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      ...onTopic(),
    });
    const metrics = properties.Metrics as Record<string, unknown>[];
    expect(metrics).toHaveLength(4);
    expect(metrics).toEqual(
      expect.arrayContaining([
        {
          Id: 'expr_1',
          Label: expect.any(String),
          Expression: `IF(attempts >= ${DELIVERY_FAILURE_RATE.minimumAttempts}, 100 * (FILL(retry_scheduled, 0) + FILL(failed, 0)) / attempts, 0)`,
          ReturnData: true,
        },
        metricStat('attempts', METRIC.deliveryAttempts, serviceDimensions, period),
        metricStat('retry_scheduled', METRIC.deliveryAttempts, byOutcome('retry_scheduled'), period),
        metricStat('failed', METRIC.deliveryAttempts, byOutcome('failed'), period),
      ]),
    );
  });

  it('API 5xx rate: 5XXError over requests on the stage, once there are enough requests to judge', () => {
    const [stageId, stage] = resourceMatching('AWS::ApiGateway::Stage', /.*/);
    const [, api] = resourceMatching('AWS::ApiGateway::RestApi', /.*/);
    const dimensions = [
      { Name: 'ApiName', Value: api.Properties.Name },
      { Name: 'Stage', Value: { Ref: stageId } },
    ];
    expect(stage.Properties.StageName).toBe('dev');
    const period = API_5XX_RATE.periodMinutes * 60;
    const apiMetric = (id: string, metricName: string) => ({
      Id: id,
      MetricStat: {
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: metricName, Dimensions: dimensions },
        Period: period,
        Stat: 'Sum',
      },
      ReturnData: false,
    });
    const properties = alarm('Api5xxRateAlarm');
    expect(properties).toMatchObject({
      Threshold: API_5XX_RATE.percent,
      EvaluationPeriods: API_5XX_RATE.periods,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      ...onTopic(),
    });
    expect(properties.Metrics).toEqual([
      {
        Id: 'expr_1',
        Label: expect.any(String),
        Expression: `IF(requests >= ${API_5XX_RATE.minimumRequests}, 100 * errors / requests, 0)`,
        ReturnData: true,
      },
      apiMetric('errors', '5XXError'),
      apiMetric('requests', 'Count'),
    ]);
  });
});

describe('the dashboard', () => {
  it('is one dashboard per stage showing every alarm and the service metrics', () => {
    const [, dashboard] = resourceMatching('AWS::CloudWatch::Dashboard', /.*/);
    expect(dashboard.Properties.DashboardName).toBe('MembershipIncidentService-dev');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const alarmId of Object.keys(resources('AWS::CloudWatch::Alarm'))) {
      expect(body).toContain(JSON.stringify({ 'Fn::GetAtt': [alarmId, 'Arn'] }));
    }
    for (const name of Object.values(METRIC)) expect(body).toContain(name);
  });
});
