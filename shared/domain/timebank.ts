/** A time-bank payout: hours credited to a member, settled when it is recorded. */
export interface TimebankPayout {
  id: string;
  memberId: string;
  hours: number;
  /** Free text for the organisation; it may be personal, so it never leaves in a webhook. */
  note: string | null;
  status: 'settled';
  settledAt: string;
}

export interface SettlePayoutInput {
  memberId: string;
  hours: number;
  note?: string;
}

/** The most one payout may settle: far beyond a real one, it stops a typo from crediting years. */
export const MAX_PAYOUT_HOURS = 10_000;

/** Hours are paid out to the hundredth (36 seconds). */
export const PAYOUT_HOURS_PLACES = 2;

export function settlePayout(id: string, input: SettlePayoutInput, now: Date): TimebankPayout {
  return {
    id,
    memberId: input.memberId.toLowerCase(),
    hours: input.hours,
    note: input.note ?? null,
    status: 'settled',
    settledAt: now.toISOString(),
  };
}

/** What `timebank.payout.settled` carries: ids, hours and time; never the note. */
export function payoutEventData(payout: TimebankPayout): Record<string, unknown> {
  const { id, memberId, hours, settledAt } = payout;
  return { id, memberId, hours, settledAt };
}
