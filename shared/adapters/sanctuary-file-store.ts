import { marshall } from '@aws-sdk/util-dynamodb';
import type { SanctuaryFile } from '../domain/sanctuary-file.js';
import { tableName } from './dynamodb.js';
import { keys } from './keys.js';
import { newRecordWrite, readRecord } from './records.js';
import type { TransactionItem } from './transaction.js';

/** Stored without `expiredAt` until the expiry is processed, so that the expiry can test for its absence. */
export function fileWrite(organisationId: string, file: SanctuaryFile): TransactionItem {
  // `expiresAt` is a string here; the table's TTL reads only Number attributes, so it never deletes a file.
  return newRecordWrite(keys.sanctuaryFile(organisationId, file.id), 'file', file, `File ${file.id}`);
}

export class FileAlreadyExpiredError extends Error {}

/** Marks the file expired, once: the write fails if the file is gone or already expired. */
export function fileExpiredWrite(organisationId: string, fileId: string, expiredAt: Date): TransactionItem {
  return {
    write: {
      Update: {
        TableName: tableName(),
        Key: marshall(keys.sanctuaryFile(organisationId, fileId)),
        UpdateExpression: 'SET expiredAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(expiredAt)',
        ExpressionAttributeValues: marshall({ ':at': expiredAt.toISOString() }),
      },
    },
    onConditionFailed: () => new FileAlreadyExpiredError(),
  };
}

export async function getFile(organisationId: string, id: string): Promise<SanctuaryFile | undefined> {
  const item = await readRecord(keys.sanctuaryFile(organisationId, id));
  if (!item) return undefined;
  return {
    id: String(item.id),
    name: String(item.name),
    expiresAt: String(item.expiresAt),
    createdAt: String(item.createdAt),
    expiredAt: typeof item.expiredAt === 'string' ? item.expiredAt : null,
  };
}
