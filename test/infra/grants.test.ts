import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRANTS } from '../../shared/topology/grants.js';
import { allFunctionNames } from '../../shared/topology/routes.js';
import { RATE_COUNTER_KEY_PREFIX } from '../../shared/topology/table.js';
import { settingsOnlyTemplate, templateLookups } from '../support/template.js';

let template: Template;
beforeAll(() => {
  template = settingsOnlyTemplate('dev');
});
const { policyStatementsOf, resources } = templateLookups(() => template);

/** What the stream's event source mapping needs: the relay's trigger, not one of its grants. */
const STREAM_ACTIONS = new Set([
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
]);

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const tableId = () => Object.keys(resources('AWS::DynamoDB::GlobalTable'))[0];
const onTable = (statement: Statement) => JSON.stringify(statement.Resource).includes(`"${tableId()}"`);

describe("each function's IAM policy", () => {
  it('allows exactly the table actions of its grants, and UpdateItem on rate counters only by LeadingKeys', () => {
    for (const name of allFunctionNames()) {
      const grants = GRANTS[name];
      const statements = (policyStatementsOf(name) as Statement[]).filter(
        (s) =>
          [s.Action].flat().some((a) => a.startsWith('dynamodb:') && !a.includes('Stream')) && onTable(s),
      );
      const unconditioned = statements.filter((s) => s.Condition === undefined);
      const conditioned = statements.filter((s) => s.Condition !== undefined);
      expect(
        unconditioned
          .flatMap((s) => [s.Action].flat())
          .filter((a) => !STREAM_ACTIONS.has(a))
          .sort(),
        name,
      ).toEqual([...grants.table].sort());
      const limiterOnly =
        'rateCounters' in grants && !(grants.table as readonly string[]).includes('dynamodb:UpdateItem');
      expect(conditioned, name).toEqual(
        limiterOnly
          ? [
              {
                Action: 'dynamodb:UpdateItem',
                Effect: 'Allow',
                Resource: expect.objectContaining({ 'Fn::GetAtt': [tableId(), 'Arn'] }),
                Condition: {
                  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_COUNTER_KEY_PREFIX}*`] },
                },
              },
            ]
          : [],
      );
    }
  });

  it('reaches the signing-secrets key, the bus and the delivery queue only where the grants say', () => {
    for (const name of allFunctionNames()) {
      const grants = GRANTS[name];
      const actions = (policyStatementsOf(name) as Statement[]).flatMap((s) => [s.Action].flat());
      expect(actions.filter((a) => a.startsWith('kms:')).sort(), name).toEqual(
        [...('signingKey' in grants ? grants.signingKey : [])].sort(),
      );
      expect(
        actions.filter((a) => a.startsWith('events:')),
        name,
      ).toEqual('eventBus' in grants ? [...grants.eventBus] : []);
      expect(actions.includes('sqs:ChangeMessageVisibility'), name).toBe('deliveryQueue' in grants);
    }
  });
});
