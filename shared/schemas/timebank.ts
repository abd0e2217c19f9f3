import * as z from 'zod/mini';
import { MAX_PAYOUT_HOURS, PAYOUT_HOURS_PLACES } from '../domain/timebank.js';
import { decimalNumber, described, instant, text, uuid } from './common.js';

export const settlePayoutBody = described(
  z.strictObject({
    memberId: uuid('The member the hours are paid out to; must be a recorded member (else 404).'),
    hours: decimalNumber({
      min: 0,
      exclusiveMin: true,
      max: MAX_PAYOUT_HOURS,
      places: PAYOUT_HOURS_PLACES,
      description: `Hours paid out: a number greater than zero and at most ${MAX_PAYOUT_HOURS}, a multiple of 0.01 (two decimal places at most).`,
      example: 2.5,
      rangeMessage: `Hours must be greater than zero and at most ${MAX_PAYOUT_HOURS}.`,
      placesMessage: 'Use at most two decimal places, such as 2.25.',
    }),
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
    hours: described(z.number().check(z.positive(), z.maximum(MAX_PAYOUT_HOURS)), {
      description: 'Hours settled, to the hundredth.',
      examples: [2.5],
    }),
    note: z.nullable(z.string()),
    status: z.literal('settled'),
    settledAt: instant('When the payout was settled.'),
  }),
  { id: 'TimebankPayout', description: 'A settled time-bank payout.' },
);
