import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DELIVERY_RULE_PATTERN } from '../../../shared/topology/event-bus.js';
import { DELIVERY_QUEUE } from '../../../shared/topology/queues.js';
import { RELAY_STREAM } from '../../../shared/topology/relay-stream.js';
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

/** EventBridge's maximums for a target: it keeps retrying an event it cannot deliver for a day. */
export const RULE_TARGET_RETRY = { maxEventAgeHours: 24, retryAttempts: 185 };

/**
 * The path from a committed change to the subscriber: table stream (outbox items only) → relay →
 * event bus → rule → delivery queue → delivery function, with the dead-letter queue after the
 * sixth failed attempt, and one for the rule's target when EventBridge cannot reach the queue.
 */
export class WebhookPipeline extends Construct {
  readonly signingKey: Key;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** Where EventBridge puts a delivery it could not send to the delivery queue. */
  readonly ruleDeadLetterQueue: Queue;
  readonly bus: EventBus;
  readonly relay: ServiceFunction;

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

    // Without it, an event EventBridge cannot put on the queue (a policy or quota error) is dropped
    // after its retries with no trace: the delivery would be lost although the change was committed.
    this.ruleDeadLetterQueue = new Queue(this, 'RuleDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.seconds(DELIVERY_QUEUE.deadLetterRetentionSeconds),
      removalPolicy,
    });
    Validations.of(this.ruleDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This is the dead-letter queue of the delivery rule target; it has none of its own.',
    });

    this.bus = new EventBus(this, 'Bus', { description: 'Webhook deliveries relayed from the outbox' });
    new Rule(this, 'DeliveryRule', {
      eventBus: this.bus,
      eventPattern: {
        source: [...DELIVERY_RULE_PATTERN.source],
        detailType: [...DELIVERY_RULE_PATTERN['detail-type']],
      },
      targets: [
        new SqsQueue(this.queue, {
          // The message body is the delivery itself, as the local bus sends it too.
          message: RuleTargetInput.fromEventPath('$.detail'),
          // The queue policy lets events.amazonaws.com send to it for this rule only.
          deadLetterQueue: this.ruleDeadLetterQueue,
          maxEventAge: Duration.hours(RULE_TARGET_RETRY.maxEventAgeHours),
          retryAttempts: RULE_TARGET_RETRY.retryAttempts,
        }),
      ],
    });

    const relay = new ServiceFunction(this, 'Relay', {
      name: RELAY_FUNCTION,
      settings,
      environment: { ...props.environment, EVENT_BUS_NAME: this.bus.eventBusName },
      timeout: Duration.seconds(60),
    });
    this.relay = relay;
    props.grant(relay, { eventBus: this.bus });
    relay.function.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: RELAY_STREAM.batchSize,
        parallelizationFactor: RELAY_STREAM.parallelizationFactor,
        maxBatchingWindow: Duration.millis(0),
        filters: [FilterCriteria.filter(OUTBOX_STREAM_FILTER as unknown as Record<string, unknown>)],
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        // Retried until it succeeds: a record dropped here would be a webhook lost (the iterator-age
        // alarm in ServiceAlarms tells an operator when the relay is stuck).
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
  }
}
