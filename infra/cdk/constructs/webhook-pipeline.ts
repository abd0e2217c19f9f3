import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Alias, Key } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAX_DELIVERY_ATTEMPTS } from '../../../shared/domain/retry-schedule.js';
import { DELIVERY_RULE_PATTERN } from '../../../shared/topology/event-bus.js';
import { DELIVERY_QUEUE } from '../../../shared/topology/queues.js';
import { DELIVERY_FUNCTION, RELAY_FUNCTION } from '../../../shared/topology/routes.js';
import { OUTBOX_STREAM_FILTER } from '../../../shared/topology/stream-filter.js';
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS } from '../../../shared/topology/timeouts.js';
import type { GrantAccess } from '../grants.js';
import type { StageSettings } from '../stage.js';
import { ServiceFunction } from './service-function.js';

export interface WebhookPipelineProps {
  settings: StageSettings;
  table: ITableV2;
  environment: Record<string, string>;
  grant: GrantAccess;
}

/**
 * The path from a committed change to the subscriber: table stream (outbox items only) → relay →
 * event bus → rule → delivery queue → delivery function, with the dead-letter queue after the
 * sixth failed attempt and an alarm as soon as anything lands there.
 */
export class WebhookPipeline extends Construct {
  readonly signingKey: Key;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly bus: EventBus;
  readonly alarmTopic: Topic;

  constructor(scope: Construct, id: string, props: WebhookPipelineProps) {
    super(scope, id);
    const { settings, table } = props;
    const removalPolicy: RemovalPolicy = settings.removalPolicy;

    this.signingKey = new Key(this, 'SigningSecretsKey', {
      description: 'Encrypts webhook signing secrets at rest',
      enableKeyRotation: true,
      removalPolicy,
    });

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.seconds(DELIVERY_QUEUE.deadLetterRetentionSeconds),
      removalPolicy,
    });
    this.queue = new Queue(this, 'DeliveryQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(DELIVERY_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(DELIVERY_QUEUE.retentionSeconds),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount },
      removalPolicy,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This is the dead-letter queue of the delivery queue; it has none of its own.',
    });

    this.bus = new EventBus(this, 'Bus', { description: 'Webhook deliveries relayed from the outbox' });
    new Rule(this, 'DeliveryRule', {
      eventBus: this.bus,
      eventPattern: {
        source: [...DELIVERY_RULE_PATTERN.source],
        detailType: [...DELIVERY_RULE_PATTERN['detail-type']],
      },
      // The message body is the delivery itself, as the local bus sends it too.
      targets: [new SqsQueue(this.queue, { message: RuleTargetInput.fromEventPath('$.detail') })],
    });

    const relay = new ServiceFunction(this, 'Relay', {
      name: RELAY_FUNCTION,
      settings,
      environment: { ...props.environment, EVENT_BUS_NAME: this.bus.eventBusName },
      timeout: Duration.seconds(60),
    });
    props.grant(relay, { eventBus: this.bus });
    relay.function.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.millis(0),
        filters: [FilterCriteria.filter(OUTBOX_STREAM_FILTER as unknown as Record<string, unknown>)],
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        // Retried until it succeeds: a record dropped here would be a webhook lost (the iterator-age
        // alarm below tells an operator when the relay is stuck).
        retryAttempts: -1,
      }),
    );

    const delivery = new ServiceFunction(this, 'Delivery', {
      name: DELIVERY_FUNCTION,
      settings,
      environment: { ...props.environment, DELIVERY_QUEUE_URL: this.queue.queueUrl },
      timeout: Duration.seconds(DELIVERY_FUNCTION_TIMEOUT_SECONDS),
    });
    props.grant(delivery, { signingKey: this.signingKey, deliveryQueue: this.queue });
    delivery.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: DELIVERY_QUEUE.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: DELIVERY_QUEUE.maxConcurrency,
      }),
    );

    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      enforceSSL: true,
      masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    const deadLetters = new Alarm(this, 'DeadLettersAlarm', {
      alarmDescription: `Webhook deliveries failed ${MAX_DELIVERY_ATTEMPTS} times and wait in the dead-letter queue (mis dlq list).`,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const relayStuck = new Alarm(this, 'RelayIteratorAgeAlarm', {
      alarmDescription: 'The outbox relay is more than five minutes behind the table stream.',
      metric: relay.function.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
      threshold: 5 * 60 * 1000,
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    for (const alarm of [deadLetters, relayStuck]) alarm.addAlarmAction(new SnsAction(this.alarmTopic));
  }
}
