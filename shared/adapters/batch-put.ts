import { type AttributeValue, BatchWriteItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { dynamodb, tableName } from './dynamodb.js';

/** BatchWriteItem's limit. */
export const BATCH_WRITE_MAX = 25;
/** Tries of the items DynamoDB left unprocessed (throttling) before the batch is reported failed. */
const BATCH_WRITE_TRIES = 4;

type Item = Record<string, AttributeValue>;

const keyOf = (item: Item) => `${item.pk?.S}\u0000${item.sk?.S}`;

/**
 * Puts whole items, 25 to a BatchWriteItem, trying again the items DynamoDB leaves unprocessed;
 * throws when some stay unwritten. BatchWriteItem refuses a request that names one key twice, so
 * of two items with the same key only the later is written (it would have replaced the earlier).
 */
export async function putItems(items: readonly Item[]): Promise<void> {
  const unique = [...new Map(items.map((item) => [keyOf(item), item])).values()];
  for (let start = 0; start < unique.length; start += BATCH_WRITE_MAX) {
    let requests: WriteRequest[] = unique
      .slice(start, start + BATCH_WRITE_MAX)
      .map((item) => ({ PutRequest: { Item: item } }));
    for (let tries = 1; requests.length > 0; tries++) {
      if (tries > BATCH_WRITE_TRIES) throw new Error(`${requests.length} items stayed unprocessed`);
      const { UnprocessedItems } = await dynamodb().send(
        new BatchWriteItemCommand({ RequestItems: { [tableName()]: requests } }),
      );
      requests = UnprocessedItems?.[tableName()] ?? [];
      if (requests.length > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** tries));
    }
  }
}
