import { APIGatewayClient, FlushStageAuthorizersCacheCommand } from '@aws-sdk/client-api-gateway';
import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
  type DescribeStacksCommandInput,
} from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveDeadLetterTarget } from '../../infra/cli/dlq.js';
import { CliError, resolveTarget } from '../../infra/cli/target.js';

/**
 * `mis … --stack <name>` on a deployed stack: CloudFormation's DescribeStacks finds the stack's
 * outputs, and a token revocation flushes API Gateway's authorizer cache. Neither has a local
 * engine, so both are tested against the SDK's clients with the exact command input asserted.
 */
const STACK = 'MembershipIncidentService-staging';
const OUTPUTS = {
  TableName: 'MembershipIncidentService-staging-TableCD117FA1-1A2B3C4D5E6F',
  RestApiId: 'a1b2c3d4e5',
  StageName: 'staging',
  Region: 'eu-central-1',
  SigningKeyArn: 'arn:aws:kms:eu-central-1:111122223333:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
  DeliveryQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/delivery',
  DeadLetterQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/delivery-dlq',
};

const cloudFormation = mockClient(CloudFormationClient);
const apiGateway = mockClient(APIGatewayClient);
const dynamodb = mockClient(DynamoDBClient);

/** Answers DescribeStacks as CloudFormation does: the named stack's outputs, or an error for any other name. */
function deployed(outputs: Record<string, string>): void {
  cloudFormation.on(DescribeStacksCommand).callsFake((input: DescribeStacksCommandInput) => {
    if (input.StackName !== STACK) {
      throw new CloudFormationServiceException({
        name: 'ValidationError',
        $fault: 'client',
        message: `Stack with id ${input.StackName} does not exist`,
        $metadata: {},
      });
    }
    return {
      Stacks: [
        {
          StackName: STACK,
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date('2026-11-01T00:00:00Z'),
          Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
        },
      ],
    };
  });
}

const describeInputs = () => cloudFormation.commandCalls(DescribeStacksCommand).map((c) => c.args[0].input);
const flushInputs = () =>
  apiGateway.commandCalls(FlushStageAuthorizersCacheCommand).map((c) => c.args[0].input);

beforeEach(() => {
  cloudFormation.reset();
  apiGateway.reset();
  dynamodb.reset();
  // resolveTarget points the process at the stack, as the CLI runs: put the test's environment back.
  vi.unstubAllEnvs();
  for (const name of ['TABLE_NAME', 'AWS_REGION', 'SECRETS_KMS_KEY_ID', 'DYNAMODB_ENDPOINT']) {
    vi.stubEnv(name, undefined);
  }
});
afterAll(() => {
  vi.unstubAllEnvs();
  cloudFormation.restore();
  apiGateway.restore();
  dynamodb.restore();
});

describe('--stack <name>', () => {
  it("reads the stack's outputs with DescribeStacks and points the CLI at its table, region and key", async () => {
    deployed(OUTPUTS);
    const target = await resolveTarget(STACK);
    expect(describeInputs()).toEqual([{ StackName: STACK }]);
    expect(target.description).toBe(`stack ${STACK}`);
    expect(process.env.TABLE_NAME).toBe(OUTPUTS.TableName);
    expect(process.env.AWS_REGION).toBe(OUTPUTS.Region);
    expect(process.env.SECRETS_KMS_KEY_ID).toBe(OUTPUTS.SigningKeyArn);
    expect(apiGateway.calls()).toHaveLength(0);
  });

  it("refuses a stack without this service's outputs, and a stack that does not exist", async () => {
    deployed({ ApiBaseUrl: 'https://example.execute-api.eu-central-1.amazonaws.com/prod/api/public/v1' });
    await expect(resolveTarget(STACK)).rejects.toThrow(
      new CliError(
        `Stack ${STACK} has no TableName, RestApiId and StageName outputs: is it this service's stack?`,
      ),
    );
    expect(process.env.TABLE_NAME).toBeUndefined();
    await expect(resolveTarget('SomeoneElsesStack')).rejects.toThrow(
      'Stack with id SomeoneElsesStack does not exist',
    );
    expect(describeInputs()).toEqual([{ StackName: STACK }, { StackName: 'SomeoneElsesStack' }]);
  });

  it("flushes the authorizer cache of the stack's own API and stage, in the stack's region", async () => {
    deployed(OUTPUTS);
    apiGateway.on(FlushStageAuthorizersCacheCommand).resolves({});
    await (await resolveTarget(STACK)).flushAuthorizerCache();
    expect(flushInputs()).toEqual([{ restApiId: OUTPUTS.RestApiId, stageName: OUTPUTS.StageName }]);
    const client = apiGateway.call(0).thisValue as APIGatewayClient;
    expect(await client.config.region()).toBe(OUTPUTS.Region);
  });

  it('lets a failed flush fail the command (the revocation would otherwise wait out the cache)', async () => {
    deployed(OUTPUTS);
    apiGateway.on(FlushStageAuthorizersCacheCommand).rejects(new Error('AccessDenied'));
    await expect((await resolveTarget(STACK)).flushAuthorizerCache()).rejects.toThrow('AccessDenied');
  });

  it("finds the delivery and dead-letter queues for mis dlq in the stack's outputs", async () => {
    deployed(OUTPUTS);
    const target = await resolveDeadLetterTarget(STACK);
    expect(describeInputs()).toEqual([{ StackName: STACK }]);
    expect(target).toMatchObject({
      deliveryQueueUrl: OUTPUTS.DeliveryQueueUrl,
      deadLetterQueueUrl: OUTPUTS.DeadLetterQueueUrl,
    });
    expect(target.sqs).toBeInstanceOf(SQSClient);
    expect(await target.sqs.config.region()).toBe(OUTPUTS.Region);
  });
});

describe('mis token revoke <id> --stack <name>', () => {
  it("revokes the token in the stack's table, then flushes the stack's authorizer cache", async () => {
    deployed(OUTPUTS);
    const order: string[] = [];
    dynamodb.on(UpdateItemCommand).callsFake(() => {
      order.push('revoke');
      return { Attributes: marshall({ revokedAt: '2026-11-22T10:00:00.000Z' }) };
    });
    apiGateway.on(FlushStageAuthorizersCacheCommand).callsFake(() => {
      order.push('flush');
      return {};
    });
    const printed: unknown[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line) => printed.push(line));
    const exits: unknown[] = [];
    const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
      exits.push(code);
      return undefined as never;
    });
    const argv = process.argv;
    process.argv = [argv[0] ?? 'node', 'mis', 'token', 'revoke', 'tok_AbCd1234', '--stack', STACK, '--json'];
    try {
      // The CLI runs its command when loaded, as `npx mis …` does.
      await import('../../infra/cli/mis.js');
      await vi.waitFor(() => expect(printed.length + exits.length).toBeGreaterThan(0));
    } finally {
      process.argv = argv;
      log.mockRestore();
      exit.mockRestore();
    }
    expect(exits).toEqual([]);
    expect(order).toEqual(['revoke', 'flush']);
    expect(dynamodb.commandCalls(UpdateItemCommand)[0]?.args[0].input.TableName).toBe(OUTPUTS.TableName);
    expect(flushInputs()).toEqual([{ restApiId: OUTPUTS.RestApiId, stageName: OUTPUTS.StageName }]);
    expect(JSON.parse(String(printed[0]))).toEqual({
      id: 'tok_AbCd1234',
      revokedAt: '2026-11-22T10:00:00.000Z',
    });
  });
});
