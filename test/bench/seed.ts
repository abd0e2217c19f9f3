import {
  type AttributeValue,
  BatchWriteItemCommand,
  UpdateItemCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { dynamodb, tableName } from '../../shared/adapters/dynamodb.js';
import type { TransactionItem } from '../../shared/adapters/transaction.js';

/** DynamoDB's limit per BatchWriteItem. */
const BATCH_SIZE = 25;
const PARALLEL_REQUESTS = 8;

async function inParallel<T>(work: T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < work.length) await run(work[next++] as T);
  };
  await Promise.all(Array.from({ length: PARALLEL_REQUESTS }, worker));
}

async function putBatch(items: Record<string, AttributeValue>[]): Promise<void> {
  let requests: WriteRequest[] = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 1; requests.length > 0; attempt++) {
    if (attempt > 10) throw new Error(`${requests.length} seed items stayed unprocessed`);
    const { UnprocessedItems } = await dynamodb().send(
      new BatchWriteItemCommand({ RequestItems: { [tableName()]: requests } }),
    );
    requests = UnprocessedItems?.[tableName()] ?? [];
  }
}

/**
 * Applies the writes of many of the service's own transactions (from its store functions, so the
 * items have exactly the shapes the service writes) at a fraction of the cost of committing them
 * one by one. Seeding only: Puts go in batches, without their conditions (those guard against
 * concurrent writers, which a seed has none of); counter Updates that differ only in what they SET
 * are merged into one that ADDs their number in place of `:one`, and keeps the last SET values,
 * which is what applying them one after the other leaves.
 */
export async function applyInBulk(transactions: TransactionItem[][]): Promise<void> {
  const puts: Record<string, AttributeValue>[] = [];
  const counters = new Map<
    string,
    { update: NonNullable<TransactionItem['write']['Update']>; times: number }
  >();
  for (const { write } of transactions.flat()) {
    if (write.Put?.Item) {
      puts.push(write.Put.Item);
    } else if (
      write.Update &&
      !write.Update.ConditionExpression &&
      write.Update.ExpressionAttributeValues?.[':one']
    ) {
      const { Key, UpdateExpression, ExpressionAttributeNames } = write.Update;
      const group = JSON.stringify([Key, UpdateExpression, ExpressionAttributeNames]);
      counters.set(group, { update: write.Update, times: (counters.get(group)?.times ?? 0) + 1 });
    } else {
      throw new Error(`applyInBulk cannot merge this write: ${JSON.stringify(write).slice(0, 200)}`);
    }
  }
  const batches = Array.from({ length: Math.ceil(puts.length / BATCH_SIZE) }, (_, i) =>
    puts.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE),
  );
  await inParallel(batches, putBatch);
  await inParallel([...counters.values()], async ({ update, times }) => {
    await dynamodb().send(
      new UpdateItemCommand({
        ...update,
        ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':one': { N: String(times) } },
      }),
    );
  });
}
