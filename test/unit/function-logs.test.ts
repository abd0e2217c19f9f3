import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { invocationScopes, lambdaContext } from '../../infra/local/lambda-context.js';
import { BASE_PATH } from '../../shared/config.js';
import { apiHandler } from '../../shared/http/api-handler.js';

/**
 * The local stack runs every function in one process with one logger. An unexpected error must be
 * logged under the name of the function it happened in, also while other functions run at the
 * same moment (it once carried the name of whichever function had logged before).
 */
const dynamodb = mockClient(DynamoDBClient);
const written: string[] = [];

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
  // The rate limit's counter: every request is the first of its window.
  dynamodb.on(UpdateItemCommand).resolves({ Attributes: { requests: { N: '1' } } });
  // The logger's own console writes errors to stderr.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
  }
});

afterAll(() => {
  vi.restoreAllMocks();
  dynamodb.restore();
});

const ping = {
  resource: `${BASE_PATH}/ping`,
  path: `${BASE_PATH}/ping`,
  httpMethod: 'GET',
  headers: {},
  queryStringParameters: null,
  requestContext: {
    authorizer: { organisationId: 'org', tokenId: 'tok', scopes: 'read', rateLimitPerMinute: '60' },
  },
} as unknown as APIGatewayProxyEvent;

/** A function that fails unexpectedly after `ms`, its error to be logged by the problem mapping. */
const failingAfter = (ms: number) =>
  apiHandler(async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    throw new Error(`failed after ${ms} ms`);
  });

describe('an unexpected error in the local stack', () => {
  it('is logged under the name of the function it happened in, while others run at the same time', async () => {
    const inScope = await invocationScopes();
    const slow = failingAfter(30);
    const fast = failingAfter(1);
    const answers = await Promise.all([
      inScope(() => slow(ping, lambdaContext('impact-report'))),
      inScope(() => fast(ping, lambdaContext('member-statistics'))),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([500, 500]);
    const errors = written
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"Unhandled error"'))
      .map((line) => JSON.parse(line) as { function_name?: string; error: { message: string } });
    expect(errors.map((e) => [e.error.message, e.function_name]).sort()).toEqual([
      ['failed after 1 ms', 'member-statistics'],
      ['failed after 30 ms', 'impact-report'],
    ]);
  });
});
