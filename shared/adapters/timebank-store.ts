import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ConflictError } from '../domain/errors.js';
import type { TimebankPayout } from '../domain/timebank.js';
import { dynamodb, tableName, withoutNulls } from './dynamodb.js';
import { keys } from './keys.js';
import type { TransactionItem } from './transaction.js';

export function payoutWrite(organisationId: string, payout: TimebankPayout): TransactionItem {
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: marshall({
          ...keys.timebankPayout(organisationId, payout.id),
          kind: 'payout',
          ...withoutNulls(payout),
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    onConditionFailed: () => new ConflictError(`Payout ${payout.id} exists already.`),
  };
}

export async function getPayout(organisationId: string, id: string): Promise<TimebankPayout | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.timebankPayout(organisationId, id)),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  const item = unmarshall(Item);
  return {
    id: String(item.id),
    memberId: String(item.memberId),
    hours: Number(item.hours),
    note: typeof item.note === 'string' ? item.note : null,
    status: 'settled',
    settledAt: String(item.settledAt),
  };
}
