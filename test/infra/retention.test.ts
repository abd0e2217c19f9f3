import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { allFunctionNames } from '../../shared/topology/routes.js';
import { settingsOnlyTemplate } from '../support/template.js';

/**
 * Every resource type of the stack that holds data or can make it unreadable: the table, the KMS keys
 * (signing secrets, alarm topic), the queues and dead-letter queues, the alarm topic and the log groups.
 * How many of each the stack has, so that a new one is a deliberate change here.
 */
const STATEFUL: Record<string, number> = {
  'AWS::DynamoDB::GlobalTable': 1,
  'AWS::KMS::Key': 2,
  // The delivery queue, its dead-letter queue, the rule target's dead-letter queue.
  'AWS::SQS::Queue': 3,
  'AWS::SNS::Topic': 1,
  // One per function and the API's access logs.
  'AWS::Logs::LogGroup': allFunctionNames().length + 1,
};

/** Types that would hold data if the stack ever grew one: they must then be listed above. */
const OTHER_STATEFUL_TYPES = [
  'AWS::DynamoDB::Table',
  'AWS::S3::Bucket',
  'AWS::Events::Archive',
  'AWS::SecretsManager::Secret',
  'AWS::Kinesis::Stream',
  'AWS::EFS::FileSystem',
  'AWS::Logs::LogStream',
];

let prod: Template;
let dev: Template;

beforeAll(() => {
  prod = settingsOnlyTemplate('prod');
  dev = settingsOnlyTemplate('dev');
}, 60_000);

type Policies = { DeletionPolicy?: string; UpdateReplacePolicy?: string };
const policiesOf = (template: Template, type: string) =>
  Object.entries(template.findResources(type) as Record<string, Policies>).map(([id, resource]) => ({
    id,
    DeletionPolicy: resource.DeletionPolicy,
    UpdateReplacePolicy: resource.UpdateReplacePolicy,
  }));

describe('stateful resources', () => {
  it.each(Object.entries(STATEFUL))('%s: retained in prod, on deletion and on replacement', (type, count) => {
    const resources = policiesOf(prod, type);
    expect(resources).toHaveLength(count);
    for (const resource of resources) {
      expect(resource).toEqual({ id: resource.id, DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it.each(Object.keys(STATEFUL))('%s: deleted with a dev stack', (type) => {
    for (const resource of policiesOf(dev, type)) {
      expect(resource).toEqual({ id: resource.id, DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    }
  });

  it('are all listed: the stack has no other kind of resource that holds data', () => {
    const types = new Set(
      Object.values(prod.toJSON().Resources as Record<string, { Type: string }>).map((r) => r.Type),
    );
    for (const type of OTHER_STATEFUL_TYPES) expect(types.has(type), type).toBe(false);
  });

  it('the prod table also refuses deletion outright', () => {
    // A global table's deletion protection is set per replica.
    prod.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
  });
});
