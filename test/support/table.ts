import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { ensureTable } from '../../infra/local/ensure-table.js';

/** Points the service's adapters at a fresh table of the shared DynamoDB Local, unique to this file. */
export async function useFreshTable(): Promise<string> {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `test-${randomUUID()}`;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME = tableName;
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTable(client, tableName);
  client.destroy();
  return tableName;
}
