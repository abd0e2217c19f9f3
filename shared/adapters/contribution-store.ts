import type { Contribution } from '../domain/contribution.js';
import { keys } from './keys.js';
import { newRecordWrite, readRecord } from './records.js';
import type { TransactionItem } from './transaction.js';

export function contributionWrite(organisationId: string, contribution: Contribution): TransactionItem {
  return newRecordWrite(
    keys.contribution(organisationId, contribution.id),
    'contribution',
    contribution,
    `Contribution ${contribution.id}`,
  );
}

export async function getContribution(organisationId: string, id: string): Promise<Contribution | undefined> {
  const item = await readRecord(keys.contribution(organisationId, id));
  if (!item) return undefined;
  return {
    id: String(item.id),
    amount: item.amount as Contribution['amount'],
    memberId: typeof item.memberId === 'string' ? item.memberId : null,
    receivedAt: String(item.receivedAt),
    recordedAt: String(item.recordedAt),
  };
}
