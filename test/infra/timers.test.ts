import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TIMER_SCHEDULE_MINUTES } from '../../infra/constructs/timer-schedule.js';
import { createServiceApp } from '../../infra/service-app.js';
import { TIMERS_INDEX } from '../../shared/adapters/timer-store.js';
import { TIMERS_FUNCTION_TIMEOUT_SECONDS } from '../../shared/domain/timer.js';
import { TIMERS_FUNCTION } from '../../shared/routes.js';

type Resource = { Type: string; Properties: Record<string, unknown> };
let template: Template;

beforeAll(() => {
  // Settings only: bundling is covered by stack.test.ts.
  const app = new App({ context: { stage: 'dev', 'aws:cdk:bundling-stacks': [] } });
  template = Template.fromStack(createServiceApp(app));
});

const resources = (type: string) => Object.entries(template.findResources(type) as Record<string, Resource>);

function functionId(name: string): string {
  const match = resources('AWS::Lambda::Function').find(
    ([, fn]) => fn.Properties.Description === `${name} (dev)`,
  );
  if (!match) throw new Error(`No function ${name}`);
  return match[0];
}

/** The DynamoDB actions in the policies of a function's role, sorted. */
function tableActionsOf(functionName: string): string[] {
  const fn = template.findResources('AWS::Lambda::Function')[functionId(functionName)] as Resource;
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return resources('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap(
      ([, p]) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement,
    )
    .flatMap((s) => [s.Action].flat())
    .filter((action) => action.startsWith('dynamodb:'))
    .sort();
}

describe('the timers index', () => {
  it('is a GSI of the table on string keys timerPartition and dueAt', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'timerPartition', AttributeType: 'S' },
        { AttributeName: 'dueAt', AttributeType: 'S' },
      ]),
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({
          IndexName: TIMERS_INDEX,
          KeySchema: [
            { AttributeName: 'timerPartition', KeyType: 'HASH' },
            { AttributeName: 'dueAt', KeyType: 'RANGE' },
          ],
        }),
      ]),
    });
  });
});

describe('the timers schedule', () => {
  it('invokes the timers function every minute, without retries (the next run takes over)', () => {
    const timers = functionId(TIMERS_FUNCTION);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${TIMER_SCHEDULE_MINUTES} minute)`,
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [timers, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [timers, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: timers },
      MaximumRetryAttempts: 0,
    });
  });

  it('gives the run less than the minute between two runs', () => {
    expect(TIMERS_FUNCTION_TIMEOUT_SECONDS).toBeLessThan(TIMER_SCHEDULE_MINUTES * 60);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: `${TIMERS_FUNCTION} (dev)`,
      Timeout: TIMERS_FUNCTION_TIMEOUT_SECONDS,
    });
  });
});

describe('table access', () => {
  it('lets the timers function query the index and write its transaction, and never Scan or delete', () => {
    expect(tableActionsOf(TIMERS_FUNCTION)).toEqual([
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
  });

  it('gives each write and read function exactly the actions its code uses', () => {
    const writeWithMember = [
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ];
    expect(tableActionsOf('contribution-record')).toEqual(writeWithMember);
    expect(tableActionsOf('timebank-payout-settle')).toEqual(writeWithMember);
    expect(tableActionsOf('sanctuary-file-register')).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    for (const name of ['contribution-get', 'timebank-payout-get', 'sanctuary-file-get']) {
      expect(tableActionsOf(name), name).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    }
    expect(tableActionsOf('incident-move')).toContain('dynamodb:DeleteItem');
  });
});
