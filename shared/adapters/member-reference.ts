import { marshall } from '@aws-sdk/util-dynamodb';
import { NotFoundError } from '../domain/errors.js';
import { tableName } from './dynamodb.js';
import { keys } from './keys.js';
import type { TransactionItem } from './transaction.js';

/**
 * A write that names a member commits only while that member exists: the check is part of the
 * transaction, so an unknown id is a 404 and never leaves an event about a member nobody recorded.
 */
export function memberExists(organisationId: string, memberId: string): TransactionItem {
  return {
    write: {
      ConditionCheck: {
        TableName: tableName(),
        Key: marshall(keys.member(organisationId, memberId)),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    onConditionFailed: () => new NotFoundError('Member'),
  };
}
