import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamodb, isConditionalCheckFailure, tableName } from './dynamodb.js';
import { keys } from './keys.js';

/** How far the outbox sweep has read each shard of the outbox index, and the version it was saved at. */
export interface SweepCheckpoint {
  /** Per shard: every outbox item put on the stream at or before this instant has been swept. */
  sweptUntil: string[];
  version: number;
}

export async function readSweepCheckpoint(): Promise<SweepCheckpoint | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.outboxSweepCheckpoint),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  const { sweptUntil, version } = unmarshall(Item) as SweepCheckpoint;
  return { sweptUntil, version };
}

/**
 * Saves the sweep's progress unless another run saved since `previous` was read (runs may overlap):
 * then the other run's progress stands, and this one's items are swept again next time (a replay
 * already written is not written twice). Returns whether it was saved.
 */
export async function saveSweepCheckpoint(
  sweptUntil: readonly string[],
  previous: SweepCheckpoint | undefined,
): Promise<boolean> {
  try {
    await dynamodb().send(
      new PutItemCommand({
        TableName: tableName(),
        Item: marshall({
          ...keys.outboxSweepCheckpoint,
          kind: 'outbox-sweep-checkpoint',
          sweptUntil: [...sweptUntil],
          version: (previous?.version ?? 0) + 1,
        }),
        ...(previous
          ? {
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: marshall({ ':version': previous.version }),
            }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}
