import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Contribution } from '../domain/contribution.js';
import { ConflictError } from '../domain/errors.js';
import { dynamodb, tableName, withoutNulls } from './dynamodb.js';
import { keys } from './keys.js';
import type { TransactionItem } from './transaction.js';

export function contributionWrite(organisationId: string, contribution: Contribution): TransactionItem {
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: marshall({
          ...keys.contribution(organisationId, contribution.id),
          kind: 'contribution',
          ...withoutNulls(contribution),
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    onConditionFailed: () => new ConflictError(`Contribution ${contribution.id} exists already.`),
  };
}

export async function getContribution(organisationId: string, id: string): Promise<Contribution | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.contribution(organisationId, id)),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  const item = unmarshall(Item);
  return {
    id: String(item.id),
    amount: item.amount as Contribution['amount'],
    memberId: typeof item.memberId === 'string' ? item.memberId : null,
    receivedAt: String(item.receivedAt),
    recordedAt: String(item.recordedAt),
  };
}
