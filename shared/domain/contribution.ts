import { type CurrencyCode, normaliseAmount } from './currency.js';
import { ValidationError } from './errors.js';

export interface Money {
  /** A decimal string with exactly the currency's minor unit of decimal places. */
  value: string;
  currency: CurrencyCode;
}

/** A received contribution: an amount, when it came in, and optionally which member gave it. */
export interface Contribution {
  id: string;
  amount: Money;
  memberId: string | null;
  receivedAt: string;
  recordedAt: string;
}

export interface NewContributionInput {
  amount: { value: string; currency: CurrencyCode };
  memberId?: string;
  receivedAt?: string;
}

/** Clocks disagree a little; a receipt time further ahead than this is a mistake. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** The input is already checked against the schema (currency, decimal places); the time is checked here. */
export function newContribution(id: string, input: NewContributionInput, now: Date): Contribution {
  if (input.receivedAt !== undefined && Date.parse(input.receivedAt) > now.getTime() + CLOCK_SKEW_MS) {
    throw new ValidationError([
      { field: 'receivedAt', message: 'The receipt time cannot be in the future.' },
    ]);
  }
  return {
    id,
    amount: {
      value: normaliseAmount(input.amount.value, input.amount.currency),
      currency: input.amount.currency,
    },
    memberId: input.memberId?.toLowerCase() ?? null,
    receivedAt: input.receivedAt ? new Date(input.receivedAt).toISOString() : now.toISOString(),
    recordedAt: now.toISOString(),
  };
}

/** What `contribution.received` carries: the amount and ids, nothing else. */
export function contributionEventData(contribution: Contribution): Record<string, unknown> {
  const { id, amount, memberId, receivedAt } = contribution;
  return { id, amount, memberId, receivedAt };
}
