import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { requireEnv } from '../config.js';
import { guarded } from './access-guard.js';

/**
 * One client per process, created at module load. `DYNAMODB_ENDPOINT` is set only by the local
 * stack and the tests, which talk to DynamoDB Local; on AWS the SDK's defaults apply.
 */
function createClient(): DynamoDBClient {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) return new DynamoDBClient({});
  return new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION || 'local',
    // DynamoDB Local takes any credentials; inside a Lambda runtime the function's own are used.
    ...(process.env.AWS_LAMBDA_FUNCTION_NAME
      ? {}
      : { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  });
}

let client: DynamoDBClient | undefined;

export function dynamodb(): DynamoDBClient {
  client ??= guarded(createClient());
  return client;
}

export function tableName(): string {
  return requireEnv('TABLE_NAME');
}

export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/**
 * Item attributes without nulls: an absent attribute, not a NULL one, is what `if_not_exists` and
 * `attribute_not_exists` test, so "not yet revoked/disabled" must be stored as absence.
 */
export function withoutNulls<T extends object>(record: T): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== null && value !== undefined),
  );
}
