import {
  DynamoDBClient,
  GetItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { actionsFor, createLocalAccessGuard, isAllowed } from '../../infra/local/access-guard.js';
import { GRANTS } from '../../shared/topology/grants.js';

const key = (pk: string) => ({ pk: { S: pk }, sk: { S: 'x' } });

describe("the local stack's stand-in for IAM", () => {
  it('needs one action per item of a transaction, as IAM checks TransactWriteItems', () => {
    expect(
      actionsFor('dynamodb', 'TransactWriteItemsCommand', {
        TransactItems: [
          { Put: { Item: key('ORG#1#INCIDENT#2') } },
          { Update: { Key: key('ORG#1#MEMBERSTATS') } },
          { ConditionCheck: { Key: key('ORG#1#MEMBER#3') } },
          { Delete: { Key: key('ORG#1#INCIDENT#2') } },
        ],
      }),
    ).toEqual([
      { action: 'dynamodb:PutItem', partitionKey: 'ORG#1#INCIDENT#2' },
      { action: 'dynamodb:UpdateItem', partitionKey: 'ORG#1#MEMBERSTATS' },
      { action: 'dynamodb:ConditionCheckItem', partitionKey: 'ORG#1#MEMBER#3' },
      { action: 'dynamodb:DeleteItem', partitionKey: 'ORG#1#INCIDENT#2' },
    ]);
    expect(actionsFor('sqs', 'ChangeMessageVisibilityCommand', {})).toEqual([
      { action: 'sqs:ChangeMessageVisibility' },
    ]);
  });

  it('lets an API function update rate counters only, as the LeadingKeys condition does', () => {
    const update = (pk: string) => ({ action: 'dynamodb:UpdateItem', partitionKey: pk });
    expect(isAllowed(GRANTS.ping, update('RATE#tok_abcd1234'))).toBe(true);
    expect(isAllowed(GRANTS.ping, update('ORG#1#INCIDENT#2'))).toBe(false);
    expect(isAllowed(GRANTS.ping, { action: 'dynamodb:UpdateItem' })).toBe(false);
    expect(isAllowed(GRANTS['record-member'], update('ORG#1#MEMBERSTATS'))).toBe(true);
    expect(isAllowed(GRANTS.ping, { action: 'dynamodb:GetItem' })).toBe(false);
    expect(isAllowed(GRANTS['deliver-webhook'], { action: 'kms:Decrypt' })).toBe(true);
    expect(isAllowed(GRANTS['deliver-webhook'], { action: 'kms:Encrypt' })).toBe(false);
    expect(isAllowed(GRANTS['outbox-relay'], { action: 'events:PutEvents' })).toBe(true);
    expect(isAllowed(GRANTS['incident-get'], { action: 'events:PutEvents' })).toBe(false);
  });

  it("refuses a client call outside the running function's grants with AccessDenied, before it is sent", async () => {
    const { guard, runAs } = createLocalAccessGuard();
    // Nothing listens here: a call that passed the guard would fail to connect instead.
    const dynamodb = new DynamoDBClient({
      endpoint: 'http://127.0.0.1:9',
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    const sqs = new SQSClient({
      endpoint: 'http://127.0.0.1:9',
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    guard.guardClient(dynamodb);
    guard.guardClient(sqs);
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => 'sent',
        (error: Error) => (error.name === 'AccessDeniedException' ? error.message : `other: ${error.name}`),
      );

    const getItem = new GetItemCommand({ TableName: 't', Key: key('ORG#1#INCIDENT#2') });
    expect(await runAs('ping', () => refusal(dynamodb.send(getItem)))).toMatch(
      /assumed-role\/ping\/ping is not authorized to perform: dynamodb:GetItem/,
    );
    // Allowed calls go on to the network (and fail there, as nothing listens).
    expect(await runAs('incident-get', () => refusal(dynamodb.send(getItem)))).toMatch(/^other: /);
    const counter = new UpdateItemCommand({
      TableName: 't',
      Key: key('RATE#tok_1'),
      UpdateExpression: 'ADD n :one',
    });
    expect(await runAs('ping', () => refusal(dynamodb.send(counter)))).toMatch(/^other: /);
    const transaction = new TransactWriteItemsCommand({
      TransactItems: [{ Put: { TableName: 't', Item: key('ORG#1#X') } }],
    });
    expect(await runAs('incident-get', () => refusal(dynamodb.send(transaction)))).toMatch(
      /dynamodb:PutItem/,
    );
    const visibility = new ChangeMessageVisibilityCommand({
      QueueUrl: 'http://127.0.0.1:9/q',
      ReceiptHandle: 'r',
      VisibilityTimeout: 1,
    });
    expect(await runAs('incident-get', () => refusal(sqs.send(visibility)))).toMatch(
      /sqs:ChangeMessageVisibility/,
    );
    // Outside any function (the local stack itself, the CLI) nothing is checked.
    expect(await refusal(dynamodb.send(getItem))).toMatch(/^other: /);
    expect(() => runAs('incident-get', () => guard.check('kms:Decrypt'))).toThrow(/kms:Decrypt/);
    expect(() => runAs('webhook-create', () => guard.check('kms:Encrypt'))).not.toThrow();
  });
});
