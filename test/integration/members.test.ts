import { randomUUID } from 'node:crypto';
import { QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamodb, tableName } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import { memberWrites, readMemberCounts, recordMember } from '../../shared/adapters/member-store.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { retryOnTransactionConflict } from '../../shared/adapters/transaction-retry.js';
import { ConflictError } from '../../shared/domain/errors.js';
import { newMember } from '../../shared/domain/member.js';
import { useFreshTable } from '../support/table.js';

const now = new Date('2026-11-22T10:00:00.000Z');
const today = '2026-11-22';

beforeAll(async () => {
  await useFreshTable();
});

const member = (membershipType: string, region?: string, joinedAt?: string) =>
  newMember(
    randomUUID(),
    { membershipType, ...(region ? { region } : {}), ...(joinedAt ? { joinedAt } : {}) },
    now,
  );

async function statisticsItemCount(organisationId: string): Promise<number> {
  const { Count } = await dynamodb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: marshall({ ':pk': keys.memberStatistics(organisationId) }),
      Select: 'COUNT',
    }),
  );
  return Count ?? 0;
}

describe('member counts', () => {
  it('are updated in the transaction that records the member, by type, region and join day', async () => {
    const org = randomUUID();
    await recordMember(org, member('regular', 'north', '2026-11-20'));
    await recordMember(org, member('regular', 'south', '2026-11-20'));
    await recordMember(org, member('student', undefined, '2025-01-05'));
    const counts = await readMemberCounts(org, today);
    expect(counts).toEqual({
      total: 3,
      byMembershipType: { regular: 2, student: 1 },
      byRegion: { north: 1, south: 1 },
      regionUnspecified: 1,
      joinedByDay: { '2026-11-20': 2 },
      updatedAt: now.toISOString(),
    });
  });

  it('are kept per organisation', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await recordMember(a, member('regular'));
    expect((await readMemberCounts(b, today)).total).toBe(0);
  });

  it('are read with one Query of a partition that grows with days, not with members', async () => {
    const org = randomUUID();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        recordMember(org, member(`t${i % 3}`, 'north', i % 2 ? today : '2026-11-01')),
      ),
    );
    // 40 members, 2 join days: the statistics are 3 items (the totals and one per day).
    expect(await statisticsItemCount(org)).toBe(3);
    const send = vi.spyOn(dynamodb(), 'send');
    try {
      const counts = await readMemberCounts(org, today);
      expect(counts.total).toBe(40);
      expect(send).toHaveBeenCalledTimes(1);
      const [command] = send.mock.calls[0] ?? [];
      expect(command).toBeInstanceOf(QueryCommand);
      expect(command).not.toBeInstanceOf(ScanCommand);
      expect((command as QueryCommand).input.ExpressionAttributeValues?.[':pk']).toEqual({
        S: keys.memberStatistics(org),
      });
    } finally {
      send.mockRestore();
    }
  });

  it('stay exact when many members are recorded at the same moment (conflicts are retried)', async () => {
    const org = randomUUID();
    await Promise.all(Array.from({ length: 25 }, () => recordMember(org, member('regular', 'north'))));
    const counts = await readMemberCounts(org, today);
    expect(counts.total).toBe(25);
    expect(counts.byMembershipType.regular).toBe(25);
    expect(counts.joinedByDay[today]).toBe(25);
  });

  it('roll back with the member when another item of the same transaction fails, e.g. an outbox event', async () => {
    const org = randomUUID();
    const first = member('regular');
    await recordMember(org, first);
    // An extra write appended to the list, as the member.created outbox item will be; here one that must fail.
    const failing = {
      write: {
        ConditionCheck: {
          TableName: tableName(),
          Key: marshall(keys.member(org, first.id)),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      onConditionFailed: () => new ConflictError('outbox refused'),
    };
    await expect(
      retryOnTransactionConflict(() => commitTransaction([...memberWrites(org, member('student')), failing])),
    ).rejects.toThrow('outbox refused');
    const counts = await readMemberCounts(org, today);
    expect(counts.total).toBe(1);
    expect(counts.byMembershipType.student).toBeUndefined();
  });

  it('leave join days outside the 365-day window out of the read', async () => {
    const org = randomUUID();
    await recordMember(org, member('regular', undefined, '2025-11-22'));
    await recordMember(org, member('regular', undefined, '2025-11-23'));
    const counts = await readMemberCounts(org, today);
    expect(counts.total).toBe(2);
    expect(counts.joinedByDay).toEqual({ '2025-11-23': 1 });
  });
});
