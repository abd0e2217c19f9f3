import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ConflictError } from '../domain/errors.js';
import { dynamodb, tableName, withoutNulls } from './dynamodb.js';
import type { TransactionItem } from './transaction.js';

type Key = { pk: string; sk: string };

/**
 * The write that stores a new record under its key, in a transaction with the event it emits; it
 * fails rather than overwrite. Nulls are left out, so "not yet" is an absent attribute.
 */
export function newRecordWrite(key: Key, kind: string, record: object, what: string): TransactionItem {
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: marshall({ ...key, kind, ...withoutNulls(record) }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    onConditionFailed: () => new ConflictError(`${what} exists already.`),
  };
}

/** One record by its key, read consistently (a GET right after the POST sees it). */
export async function readRecord(key: Key): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({ TableName: tableName(), Key: marshall(key), ConsistentRead: true }),
  );
  return Item ? unmarshall(Item) : undefined;
}
