import * as z from 'zod/mini';
import {
  amountProblem,
  CURRENCY_CODES,
  type CurrencyCode,
  DECIMAL_AMOUNT,
  isCurrencyCode,
} from '../domain/currency.js';
import { described, instant, instantInput, PAST_INSTANT_EXAMPLE, uuid } from './common.js';

/** The decimal places are checked against the currency's ISO 4217 minor unit, naming `amount.value`. */
const fitsCurrency = z.superRefine<{ value: string; currency: CurrencyCode }>((amount, context) => {
  // A malformed value or an unknown currency is reported by its own field check already.
  if (!DECIMAL_AMOUNT.test(amount.value) || !isCurrencyCode(amount.currency)) return;
  const problem = amountProblem(amount.value, amount.currency);
  if (problem)
    context.issues.push({ code: 'custom', message: problem, path: ['value'], input: amount.value });
});

export const newContributionBody = described(
  z.strictObject({
    amount: described(
      z
        .strictObject({
          value: described(
            z
              .string()
              .check(
                z.regex(
                  DECIMAL_AMOUNT,
                  'Send a positive decimal string such as "25.00" (no sign or exponent).',
                ),
              ),
            {
              description:
                "The amount as a decimal string (never a JSON number, so that nothing is lost to floating point), greater than zero, with at most the currency's ISO 4217 minor unit of decimal places (EUR 2, JPY 0, KWD 3). Returned with exactly that many.",
              examples: ['25.00'],
            },
          ),
          currency: described(
            z.enum(CURRENCY_CODES, { error: 'Use an ISO 4217 currency code in use, such as EUR.' }),
            {
              description: 'ISO 4217 currency code.',
              examples: ['EUR'],
            },
          ),
        })
        .check(fitsCurrency),
      { description: 'How much was received.' },
    ),
    memberId: z.optional(uuid('The contributing member, if known; must be a recorded member (else 404).')),
    receivedAt: z.optional(
      instantInput(
        'When the contribution was received; default now. Not in the future.',
        PAST_INSTANT_EXAMPLE,
      ),
    ),
  }),
  {
    id: 'NewContribution',
    description:
      'A contribution received: an amount and optionally the member. No names or free text are taken.',
  },
);

export const contributionSchema = described(
  z.strictObject({
    id: uuid('The contribution id.'),
    amount: z.strictObject({
      value: described(z.string().check(z.regex(DECIMAL_AMOUNT)), {
        description: "Decimal string with exactly the currency's minor unit of decimal places.",
        examples: ['25.00'],
      }),
      currency: described(z.string().check(z.regex(/^[A-Z]{3}$/)), {
        description: 'ISO 4217 code.',
        examples: ['EUR'],
      }),
    }),
    memberId: z.nullable(uuid('The contributing member, or null.')),
    receivedAt: instant('When the contribution was received.'),
    recordedAt: instant('When it was recorded.'),
  }),
  { id: 'Contribution', description: 'A received contribution.' },
);
