import type { TimebankPayout } from '../domain/timebank.js';
import { keys } from './keys.js';
import { newRecordWrite, readRecord } from './records.js';
import type { TransactionItem } from './transaction.js';

export function payoutWrite(organisationId: string, payout: TimebankPayout): TransactionItem {
  return newRecordWrite(
    keys.timebankPayout(organisationId, payout.id),
    'payout',
    payout,
    `Payout ${payout.id}`,
  );
}

export async function getPayout(organisationId: string, id: string): Promise<TimebankPayout | undefined> {
  const item = await readRecord(keys.timebankPayout(organisationId, id));
  if (!item) return undefined;
  return {
    id: String(item.id),
    memberId: String(item.memberId),
    hours: Number(item.hours),
    note: typeof item.note === 'string' ? item.note : null,
    status: 'settled',
    settledAt: String(item.settledAt),
  };
}
