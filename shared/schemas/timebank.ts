import * as z from 'zod/mini';
import { hasAtMostTwoDecimals, MAX_PAYOUT_HOURS } from '../domain/timebank.js';
import { described, instant, text, uuid } from './common.js';

export const settlePayoutBody = described(
  z.strictObject({
    memberId: uuid('The member the hours are paid out to; must be a recorded member (else 404).'),
    hours: described(
      z
        .number()
        .check(
          z.positive('Hours must be greater than zero.'),
          z.maximum(MAX_PAYOUT_HOURS, `At most ${MAX_PAYOUT_HOURS} hours in one payout.`),
          z.refine(hasAtMostTwoDecimals, 'Use at most two decimal places, such as 2.25.'),
        ),
      {
        description: `Hours paid out: a number greater than zero with at most two decimal places, at most ${MAX_PAYOUT_HOURS}.`,
        examples: [2.5],
      },
    ),
    note: z.optional(
      text(
        'A note for the organisation. Kept with the payout, never sent in a webhook.',
        500,
        'Garden work, March',
      ),
    ),
  }),
  { id: 'SettlePayout', description: 'A time-bank payout to settle now.' },
);

export const payoutSchema = described(
  z.strictObject({
    id: uuid('The payout id.'),
    memberId: uuid('The member paid out to.'),
    hours: described(z.number().check(z.positive()), { description: 'Hours settled.', examples: [2.5] }),
    note: z.nullable(z.string()),
    status: z.literal('settled'),
    settledAt: instant('When the payout was settled.'),
  }),
  { id: 'TimebankPayout', description: 'A settled time-bank payout.' },
);
