import { paginateQuery } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { addDays, type UtcDate } from '../domain/calendar.js';
import { ConflictError } from '../domain/errors.js';
import type { Member } from '../domain/member.js';
import { emptyMemberCounts, type MemberCounts } from '../domain/member-statistics.js';
import { dynamodb, tableName, withoutNulls } from './dynamodb.js';
import { keys } from './keys.js';
import { commitTransaction, type TransactionItem } from './transaction.js';
import { retryOnTransactionConflict } from './transaction-retry.js';

/** Counter attribute names on the totals item: one top-level number per group, so ADD needs no map to exist. */
const TYPE_PREFIX = 'type:';
const REGION_PREFIX = 'region:';
const REGION_UNSPECIFIED = 'regionUnspecified';

/**
 * The writes that record one member: the member item and, in the same transaction, the running
 * counts (total, per type, per region, per join day). The statistics are therefore never out of
 * step with the members and are read without touching a member. Append more items (an outbox
 * event) to the list to commit them atomically with the member.
 */
export function memberWrites(organisationId: string, member: Member): TransactionItem[] {
  const regionAttribute = member.region === null ? REGION_UNSPECIFIED : `${REGION_PREFIX}${member.region}`;
  return [
    {
      write: {
        Put: {
          TableName: tableName(),
          Item: marshall({
            ...keys.member(organisationId, member.id),
            kind: 'member',
            ...withoutNulls(member),
          }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      onConditionFailed: () => new ConflictError(`Member ${member.id} exists already.`),
    },
    {
      write: {
        Update: {
          TableName: tableName(),
          Key: marshall(keys.memberTotals(organisationId)),
          UpdateExpression: 'ADD #total :one, #type :one, #region :one SET #kind = :kind, #updatedAt = :now',
          ExpressionAttributeNames: {
            '#total': 'total',
            '#type': `${TYPE_PREFIX}${member.membershipType}`,
            '#region': regionAttribute,
            '#kind': 'kind',
            '#updatedAt': 'updatedAt',
          },
          ExpressionAttributeValues: marshall({
            ':one': 1,
            ':kind': 'member-totals',
            ':now': member.createdAt,
          }),
        },
      },
    },
    {
      write: {
        Update: {
          TableName: tableName(),
          Key: marshall(keys.membersJoinedOn(organisationId, member.joinedAt)),
          UpdateExpression: 'ADD #count :one SET #kind = :kind',
          ExpressionAttributeNames: { '#count': 'count', '#kind': 'kind' },
          ExpressionAttributeValues: marshall({ ':one': 1, ':kind': 'members-joined-on' }),
        },
      },
    },
  ];
}

export async function recordMember(organisationId: string, member: Member): Promise<void> {
  // The counters are shared by every member write: a concurrent one may hold them for a moment.
  await retryOnTransactionConflict(() => commitTransaction(memberWrites(organisationId, member)));
}

/**
 * The counts behind the statistics: one Query over the organisation's statistics partition from
 * the first day of the 365-day window, which returns that window's day buckets and the totals item
 * (`TOTALS` sorts after `JOINED#…`). At most 367 small items, whatever the number of members.
 */
export async function readMemberCounts(organisationId: string, today: UtcDate): Promise<MemberCounts> {
  const counts = emptyMemberCounts();
  const pages = paginateQuery(
    { client: dynamodb() },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk >= :from',
      ExpressionAttributeValues: marshall({
        ':pk': keys.memberStatistics(organisationId),
        ':from': keys.membersJoinedOn(organisationId, addDays(today, -364)).sk,
      }),
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const raw of page.Items ?? []) {
      const item = unmarshall(raw);
      if (item.sk === 'TOTALS') readTotals(item, counts);
      else counts.joinedByDay[String(item.sk).slice('JOINED#'.length)] = Number(item.count);
    }
  }
  return counts;
}

function readTotals(item: Record<string, unknown>, counts: MemberCounts): void {
  counts.total = Number(item.total ?? 0);
  counts.regionUnspecified = Number(item[REGION_UNSPECIFIED] ?? 0);
  counts.updatedAt = typeof item.updatedAt === 'string' ? item.updatedAt : null;
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(TYPE_PREFIX)) counts.byMembershipType[name.slice(TYPE_PREFIX.length)] = Number(value);
    else if (name.startsWith(REGION_PREFIX))
      counts.byRegion[name.slice(REGION_PREFIX.length)] = Number(value);
  }
}
