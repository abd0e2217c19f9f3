import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, TABLE } from '../../shared/topology/table.js';

/** How long a new index may take to build from the items already there (DynamoDB Local: seconds). */
const INDEX_BUILD_TIMEOUT_MS = 120_000;

/**
 * A table made before an index was added to the definition (old `.local` data) gets that index,
 * built from its existing items; the service uses it only once it is ACTIVE.
 */
async function addMissingIndexes(
  client: DynamoDBClient,
  tableName: string,
  existing: string[],
): Promise<void> {
  const wanted = createTableInput(tableName);
  for (const index of wanted.GlobalSecondaryIndexes ?? []) {
    if (!index.IndexName || existing.includes(index.IndexName)) continue;
    const keyNames = (index.KeySchema ?? []).map((k) => k.AttributeName);
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: wanted.AttributeDefinitions?.filter((a) => keyNames.includes(a.AttributeName)),
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    const deadline = Date.now() + INDEX_BUILD_TIMEOUT_MS;
    for (;;) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      const status = Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === index.IndexName)?.IndexStatus;
      if (status === 'ACTIVE') break;
      if (Date.now() > deadline)
        throw new Error(`Index ${index.IndexName} of ${tableName} is still ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Creates the service table from the one definition, unless it is there already. */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<'created' | 'existing'> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) {
      // A table from before the outbox relay existed: give it its stream.
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamView },
        }),
      );
    }
    await addMissingIndexes(
      client,
      tableName,
      Table?.GlobalSecondaryIndexes?.flatMap((i) => i.IndexName ?? []) ?? [],
    );
    return 'existing';
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
    }),
  );
  return 'created';
}
