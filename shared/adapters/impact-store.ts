import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ConflictError } from '../domain/errors.js';
import type { ImpactReport } from '../domain/impact-report.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import type { TransactionItem } from './transaction.js';

/**
 * A report is kept under its id, and a copy is the organisation's `LATEST` item, written in the
 * same transaction. The last publication to commit is the latest, whatever the clocks of the
 * functions say, and reading it is one GetItem.
 */
export function impactReportWrites(organisationId: string, report: ImpactReport): TransactionItem[] {
  const item = { kind: 'impact-report', ...report };
  return [
    {
      write: {
        Put: {
          TableName: tableName(),
          Item: marshall({ ...keys.impactReport(organisationId, report.id), ...item }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      onConditionFailed: () => new ConflictError(`Report ${report.id} exists already.`),
    },
    {
      write: {
        Put: {
          TableName: tableName(),
          Item: marshall({ ...keys.latestImpactReport(organisationId), ...item }),
        },
      },
    },
  ];
}

export async function latestImpactReport(organisationId: string): Promise<ImpactReport | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.latestImpactReport(organisationId)),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  const { id, title, periodStart, periodEnd, summary, metrics, publishedAt } = unmarshall(Item);
  return { id, title, periodStart, periodEnd, summary, metrics, publishedAt };
}
