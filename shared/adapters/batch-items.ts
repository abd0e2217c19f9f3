import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  type KeysAndAttributes,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamodb, tableName } from './dynamodb.js';

/** BatchWriteItem's limit. */
export const BATCH_WRITE_MAX = 25;
/** Tries of what DynamoDB left unprocessed (throttling) before the batch is reported failed. */
const BATCH_TRIES = 4;

type Item = Record<string, AttributeValue>;

const keyOf = (item: Item) => `${item.pk?.S}\u0000${item.sk?.S}`;

/**
 * Calls `send` with what is still unprocessed until nothing is, backing off between tries; throws
 * when something stays unprocessed after BATCH_TRIES.
 */
async function untilProcessed<T>(first: T, send: (pending: T) => Promise<T | undefined>): Promise<void> {
  let pending: T | undefined = first;
  for (let tries = 1; pending !== undefined; tries++) {
    if (tries > BATCH_TRIES) throw new Error('Some items stayed unprocessed');
    if (tries > 1) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** (tries - 1)));
    pending = await send(pending);
  }
}

/**
 * Puts whole items, 25 to a BatchWriteItem, trying again the items DynamoDB leaves unprocessed;
 * throws when some stay unwritten. BatchWriteItem refuses a request that names one key twice, so
 * of two items with the same key only the later is written (it would have replaced the earlier).
 */
export async function putItems(items: readonly Item[]): Promise<void> {
  const unique = [...new Map(items.map((item) => [keyOf(item), item])).values()];
  for (let start = 0; start < unique.length; start += BATCH_WRITE_MAX) {
    const requests: WriteRequest[] = unique
      .slice(start, start + BATCH_WRITE_MAX)
      .map((item) => ({ PutRequest: { Item: item } }));
    await untilProcessed(requests, async (pending) => {
      const { UnprocessedItems } = await dynamodb().send(
        new BatchWriteItemCommand({ RequestItems: { [tableName()]: pending } }),
      );
      const left = UnprocessedItems?.[tableName()] ?? [];
      return left.length > 0 ? left : undefined;
    });
  }
}

/**
 * Reads a few items (up to BatchGetItem's 100 keys) in one call, strongly consistent, trying again
 * the keys DynamoDB leaves unprocessed; the items found, in no particular order.
 */
export async function getItems(keys: readonly Item[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  await untilProcessed<KeysAndAttributes>({ Keys: [...keys], ConsistentRead: true }, async (pending) => {
    const { Responses, UnprocessedKeys } = await dynamodb().send(
      new BatchGetItemCommand({ RequestItems: { [tableName()]: pending } }),
    );
    found.push(...(Responses?.[tableName()] ?? []).map((raw) => unmarshall(raw)));
    const left = UnprocessedKeys?.[tableName()];
    return left?.Keys?.length ? left : undefined;
  });
  return found;
}
