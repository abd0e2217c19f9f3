import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_DETAIL_TYPE, EVENT_SOURCE } from '../../shared/topology/event-bus.js';
import { DELIVERY_QUEUE } from '../../shared/topology/queues.js';
import { RELAY_STREAM } from '../../shared/topology/relay-stream.js';
import { OUTBOX_STREAM_FILTER } from '../../shared/topology/stream-filter.js';
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS } from '../../shared/topology/timeouts.js';
import { arnTarget, settingsOnlyTemplate, templateLookups } from '../support/template.js';

let template: Template;

beforeAll(() => {
  // Settings only: bundling is covered by stack.test.ts.
  template = settingsOnlyTemplate('dev');
});

const { resources, functionByName, functionId, actionsOf } = templateLookups(() => template);

/** The logical id of the only resource of a type. */
function onlyId(type: string): string {
  const ids = Object.keys(resources(type));
  expect(ids, type).toHaveLength(1);
  return ids[0] ?? '';
}

/** The dead-letter queue: the queue that the delivery queue's redrive policy points at. */
function deadLetterQueueId(): string {
  const main = Object.values(resources('AWS::SQS::Queue')).find((q) => q.Properties.RedrivePolicy);
  const redrive = main?.Properties.RedrivePolicy as { deadLetterTargetArn: unknown } | undefined;
  return arnTarget(redrive?.deadLetterTargetArn) ?? '';
}

describe('the table stream to the relay', () => {
  it('streams new images and feeds only outbox inserts to the relay, retried until relayed', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId('outbox-relay') },
      StartingPosition: 'TRIM_HORIZON',
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(OUTBOX_STREAM_FILTER) }] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: -1,
      // The local stream poller reads batches of the same size (RELAY_STREAM, one source).
      BatchSize: RELAY_STREAM.batchSize,
      ParallelizationFactor: RELAY_STREAM.parallelizationFactor,
    });
  });

  it('lets the relay query endpoints, put events on its bus and write its receipts, nothing more', () => {
    const actions = actionsOf('outbox-relay');
    expect(actions).toContain('events:PutEvents');
    expect(actions).toContain('dynamodb:Query');
    expect(actions).toContain('dynamodb:PutItem');
    expect(actions).not.toContain('dynamodb:BatchWriteItem');
    expect(actions).not.toContain('dynamodb:UpdateItem');
    expect(
      actions.some((a) => a.endsWith('*') && !a.startsWith('xray') && !a.startsWith('dynamodb:GetShard')),
    ).toBe(false);
  });
});

describe('the bus and the delivery queue', () => {
  it('routes deliveries to the queue with the detail as the message body', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: [EVENT_SOURCE], 'detail-type': [DELIVERY_DETAIL_TYPE] },
      Targets: [Match.objectLike({ InputPath: '$.detail' })],
    });
  });

  it('encrypts every queue, keeps visibility at six times the function timeout and dead-letters the sixth failure', () => {
    const queues = Object.entries(resources('AWS::SQS::Queue')).map(
      ([id, q]) => ({ id, ...q.Properties }) as Record<string, unknown>,
    );
    // The delivery queue, its dead-letter queue and the rule target's dead-letter queue.
    expect(queues).toHaveLength(3);
    for (const queue of queues) expect(queue.SqsManagedSseEnabled).toBe(true);
    const main = queues.find((q) => q.RedrivePolicy !== undefined);
    const dlq = queues.find((q) => q.id === deadLetterQueueId());
    expect(main).toMatchObject({
      VisibilityTimeout: 6 * DELIVERY_FUNCTION_TIMEOUT_SECONDS,
      RedrivePolicy: { maxReceiveCount: 6, deadLetterTargetArn: { 'Fn::GetAtt': [dlq?.id, 'Arn'] } },
    });
    expect(Number(dlq?.MessageRetentionPeriod)).toBeGreaterThan(Number(main?.MessageRetentionPeriod));
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'deliver-webhook (dev)',
      Timeout: DELIVERY_FUNCTION_TIMEOUT_SECONDS,
    });
  });

  it('reports partial batch failures and bounds the concurrency of deliveries', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId('deliver-webhook') },
      BatchSize: DELIVERY_QUEUE.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: DELIVERY_QUEUE.maxConcurrency },
    });
  });

  it("lets the delivery function send a limited endpoint's delivery back to the queue, and clear pending notes", () => {
    const actions = actionsOf('deliver-webhook');
    expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage', 'sqs:ChangeMessageVisibility']));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']));
  });

  it('lets the delivery function read an endpoint and its pace in one BatchGetItem', () => {
    expect(actionsOf('deliver-webhook')).toContain('dynamodb:BatchGetItem');
  });
});

describe('the rule target (fault 5: a delivery EventBridge cannot queue is kept, not dropped)', () => {
  const ruleId = () => {
    const [id] =
      Object.entries(resources('AWS::Events::Rule')).find(([, rule]) => rule.Properties.EventPattern) ?? [];
    return id ?? '';
  };
  const target = () =>
    ((resources('AWS::Events::Rule')[ruleId()]?.Properties.Targets ?? []) as Record<string, unknown>[])[0] ??
    {};

  it('retries for as long as EventBridge allows, then sends the event to a dead-letter queue of its own', () => {
    const ruleDlq = arnTarget(target().DeadLetterConfig);
    expect(ruleDlq).toMatch(/RuleDeadLetterQueue/);
    expect(ruleDlq).not.toBe(deadLetterQueueId());
    expect(target()).toMatchObject({
      Arn: { 'Fn::GetAtt': [expect.stringMatching(/DeliveryQueue/), 'Arn'] },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ruleDlq, 'Arn'] } },
      // EventBridge's maximums: a day, 185 attempts.
      RetryPolicy: { MaximumEventAgeInSeconds: 24 * 3600, MaximumRetryAttempts: 185 },
    });
  });

  it('encrypts that queue, keeps its messages 14 days and lets only this rule send to it, over TLS', () => {
    const ruleDlq = String(arnTarget(target().DeadLetterConfig));
    expect(resources('AWS::SQS::Queue')[ruleDlq]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: DELIVERY_QUEUE.deadLetterRetentionSeconds,
    });
    const policy = Object.values(resources('AWS::SQS::QueuePolicy')).find((p) =>
      (p.Properties.Queues as { Ref: string }[]).some((queue) => queue.Ref === ruleDlq),
    );
    const statements =
      (policy?.Properties.PolicyDocument as { Statement: Record<string, unknown>[] } | undefined)
        ?.Statement ?? [];
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Deny',
          Action: 'sqs:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'events.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: { 'Fn::GetAtt': [ruleDlq, 'Arn'] },
          Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId(), 'Arn'] } } },
        }),
      ]),
    );
    expect(statements.filter((s) => s.Effect === 'Allow')).toHaveLength(1);
  });
});

describe('the relay', () => {
  it('reads the table stream, so that its iterator age says how far behind it is', () => {
    const relay = functionId('outbox-relay');
    // The iterator age of the relay's event source, the table stream, is reported under the function's name.
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: relay },
      EventSourceArn: { 'Fn::GetAtt': [onlyId('AWS::DynamoDB::GlobalTable'), 'StreamArn'] },
    });
  });
});

describe('signing secrets', () => {
  it('are encrypted with a rotating KMS key that only the functions that need it may use', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    expect(actionsOf('deliver-webhook')).toContain('kms:Decrypt');
    expect(actionsOf('deliver-webhook')).not.toContain('kms:Encrypt');
    expect(actionsOf('webhook-create')).toEqual(expect.arrayContaining(['kms:Encrypt', 'kms:Decrypt']));
    for (const name of ['ping', 'incident-declare', 'outbox-relay', 'authorizer']) {
      expect(actionsOf(name).filter((a) => a.startsWith('kms:'))).toEqual([]);
    }
  });

  it('reach the delivery function and the registration function by key id, never as a value', () => {
    const [, delivery] = functionByName('deliver-webhook');
    const variables = (delivery.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const signingKey = Object.keys(resources('AWS::KMS::Key')).find((id) => id.includes('SigningSecretsKey'));
    expect(variables.SECRETS_KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [signingKey, 'Arn'] });
    const deliveryQueue = Object.keys(resources('AWS::SQS::Queue')).find((id) => id !== deadLetterQueueId());
    expect(variables.DELIVERY_QUEUE_URL).toEqual({ Ref: deliveryQueue });
  });
});

describe('outputs for operators', () => {
  it('name the queues, the alarm topic, the dashboard and the signing key', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining([
        'DeliveryQueueUrl',
        'DeadLetterQueueUrl',
        'RuleDeadLetterQueueUrl',
        'AlarmTopicArn',
        'DashboardName',
        'SigningKeyArn',
      ]),
    );
  });
});
