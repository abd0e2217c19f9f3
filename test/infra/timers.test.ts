import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TIMER_SCHEDULE_MINUTES } from '../../infra/cdk/constructs/timer-schedule.js';
import { TIMERS_INDEX } from '../../shared/adapters/timer-store.js';
import { TIMERS_FUNCTION } from '../../shared/topology/routes.js';
import { TIMERS_FUNCTION_TIMEOUT_SECONDS } from '../../shared/topology/timeouts.js';
import { settingsOnlyTemplate, templateLookups } from '../support/template.js';

let template: Template;

beforeAll(() => {
  // Settings only: bundling is covered by stack.test.ts.
  template = settingsOnlyTemplate('dev');
});

const { functionId, tableActionsOf } = templateLookups(() => template);

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
