import {
  type DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  QueryCommand,
  type QueryCommandInput,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../../shared/adapters/keys.js';
import { rateWindowAt } from '../../shared/domain/rate-window.js';

/** One DynamoDB read an endpoint makes per request, as plain SDK input so it can cross to the floor process. */
export type FloorRead =
  | { kind: 'GetItem'; input: Omit<GetItemCommandInput, 'TableName'> }
  | { kind: 'Query'; input: Omit<QueryCommandInput, 'TableName'> };

/** What the floor does per request for one scenario. */
export interface FloorRoute {
  /** The rate-limit counter is the stack's: `RATE#<tokenId>`, one item per one-minute window. */
  tokenId: string;
  rateLimitPerMinute: number;
  /** Made one after the other, after the rate-limit write; their items are unmarshalled, as the stack does. */
  reads: FloorRead[];
  /** The body the stack gave to the same request, serialised afresh for each answer. */
  body: unknown;
}

export interface FloorConfig {
  dynamodbEndpoint: string;
  tableName: string;
  /** Keyed by the whole Authorization header, as the gateway keys its cached authorizer decisions. */
  routes: Record<string, FloorRoute>;
}

export interface FloorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The same conditional ADD as `consumeRequest` in shared/adapters/rate-limiter.ts, written against
 * the SDK directly: the one DynamoDB call every authenticated request costs.
 */
async function countRequest(client: DynamoDBClient, tableName: string, route: FloorRoute) {
  const window = rateWindowAt(Date.now());
  const key = keys.rateCounter(route.tokenId, window.start);
  try {
    const { Attributes } = await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { pk: { S: key.pk }, sk: { S: key.sk } },
        UpdateExpression: 'ADD requests :one SET expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
        ExpressionAttributeValues: {
          ':one': { N: '1' },
          ':limit': { N: String(route.rateLimitPerMinute) },
          ':expiresAt': { N: String(window.expiresAt) },
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const used = Number(Attributes?.requests?.N ?? 0);
    return { allowed: true, remaining: route.rateLimitPerMinute - used, reset: window.resetSeconds };
  } catch (error) {
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
      return { allowed: false, remaining: 0, reset: window.resetSeconds };
    }
    throw error;
  }
}

async function read(client: DynamoDBClient, tableName: string, step: FloorRead): Promise<unknown[]> {
  if (step.kind === 'GetItem') {
    const { Item } = await client.send(new GetItemCommand({ ...step.input, TableName: tableName }));
    return Item ? [unmarshall(Item)] : [];
  }
  const { Items } = await client.send(new QueryCommand({ ...step.input, TableName: tableName }));
  return (Items ?? []).map((item) => unmarshall(item));
}

export async function answerFloorRequest(
  client: DynamoDBClient,
  tableName: string,
  route: FloorRoute,
): Promise<FloorAnswer> {
  const decision = await countRequest(client, tableName, route);
  const headers = {
    'Content-Type': 'application/json',
    'RateLimit-Limit': String(route.rateLimitPerMinute),
    'RateLimit-Remaining': String(Math.max(0, decision.remaining)),
    'RateLimit-Reset': String(decision.reset),
  };
  if (!decision.allowed) return { status: 429, headers, body: '{"code":"rate_limited"}' };
  let items = 0;
  for (const step of route.reads) items += (await read(client, tableName, step)).length;
  return {
    status: 200,
    headers: { ...headers, 'X-Items-Read': String(items) },
    body: JSON.stringify(route.body),
  };
}
