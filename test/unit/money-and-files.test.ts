import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ZodMiniType } from 'zod/mini';
import { contributionEventData, newContribution } from '../../shared/domain/contribution.js';
import { CURRENCY_CODES, CURRENCY_MINOR_UNITS, normaliseAmount } from '../../shared/domain/currency.js';
import { ValidationError } from '../../shared/domain/errors.js';
import { fileExpiredEventData, registerFile } from '../../shared/domain/sanctuary-file.js';
import { payoutEventData, settlePayout } from '../../shared/domain/timebank.js';
import { type DomainEvent, webhookBody } from '../../shared/domain/webhook-events.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { newContributionBody } from '../../shared/schemas/contributions.js';
import { registerFileBody } from '../../shared/schemas/sanctuary-files.js';
import { settlePayoutBody } from '../../shared/schemas/timebank.js';
import { webhookPayloadSchemas } from '../../shared/schemas/webhooks.js';
import { validationIssuesOf } from '../support/throws.js';

const withRawBody = (body: string) =>
  ({
    body,
    isBase64Encoded: false,
    headers: { 'content-type': 'application/json' },
  }) as unknown as APIGatewayProxyEvent;
const withBody = (body: unknown) => withRawBody(JSON.stringify(body));

const issues = <T>(schema: ZodMiniType<T>, event: APIGatewayProxyEvent) =>
  validationIssuesOf(() => parseJsonBody(event, schema));
const fields = <T>(schema: ZodMiniType<T>, body: unknown) =>
  issues(schema, withBody(body))
    .map((i) => i.field)
    .sort();

const memberId = '0b4e7c1a-9f7d-4a52-8d3e-6a1f2c3b4d5e';
const now = new Date('2026-11-22T10:00:00.000Z');

describe('ISO 4217 currencies', () => {
  it('lists codes in use with their minor units, and no metals, test or withdrawn codes', () => {
    expect(CURRENCY_MINOR_UNITS).toMatchObject({
      EUR: 2,
      USD: 2,
      JPY: 0,
      KRW: 0,
      KWD: 3,
      BHD: 3,
      CLF: 4,
      HUF: 2,
    });
    for (const gone of ['XAU', 'XAG', 'XDR', 'XTS', 'XXX', 'BGN', 'HRK', 'DEM']) {
      expect(CURRENCY_CODES, gone).not.toContain(gone);
    }
    for (const code of CURRENCY_CODES) expect(code).toMatch(/^[A-Z]{3}$/);
  });

  it('writes an amount with exactly the minor unit', () => {
    expect(normaliseAmount('25.5', 'EUR')).toBe('25.50');
    expect(normaliseAmount('25', 'EUR')).toBe('25.00');
    expect(normaliseAmount('1500', 'JPY')).toBe('1500');
    expect(normaliseAmount('1.2', 'KWD')).toBe('1.200');
  });
});

describe('POST /contributions body', () => {
  const amount = (value: unknown, currency: unknown = 'EUR') => ({ amount: { value, currency } });

  it('takes a decimal string in a known currency, within its minor unit', () => {
    expect(fields(newContributionBody, amount('25.00'))).toEqual([]);
    expect(fields(newContributionBody, amount('1500', 'JPY'))).toEqual([]);
    expect(fields(newContributionBody, amount('0.125', 'KWD'))).toEqual([]);
    expect(
      fields(newContributionBody, { ...amount('5'), memberId, receivedAt: '2026-11-21T09:00:00+01:00' }),
    ).toEqual([]);
  });

  it('refuses floats, signs, exponents, zero and too many decimals, naming amount.value', () => {
    for (const value of [
      25.5,
      25,
      '-5',
      '+5',
      '1e3',
      '0',
      '0.00',
      '007',
      '1.',
      '.5',
      '1,50',
      '25.001',
      ' 5',
    ]) {
      expect(fields(newContributionBody, amount(value)), String(value)).toEqual(['amount.value']);
    }
    expect(fields(newContributionBody, amount('100.5', 'JPY'))).toEqual(['amount.value']);
    expect(fields(newContributionBody, amount('1.2345', 'KWD'))).toEqual(['amount.value']);
    const [issue] = issues(newContributionBody, withBody(amount('100.5', 'JPY')));
    expect(issue?.message).toBe('JPY has no minor unit: send a whole number.');
  });

  it('refuses a currency that is not an ISO 4217 code in use, naming amount.currency', () => {
    for (const currency of ['eur', 'EURO', 'XXX', 'XAU', 'ABC', 'BGN', '', 978]) {
      expect(fields(newContributionBody, amount('5.00', currency)), String(currency)).toEqual([
        'amount.currency',
      ]);
    }
    expect(issues(newContributionBody, withBody(amount('5', 'ABC')))[0]?.message).toMatch(/ISO 4217/);
  });

  it('names every bad field at once, unknown ones included', () => {
    expect(
      fields(newContributionBody, {
        amount: { value: 5 },
        memberId: 'not-a-uuid',
        receivedAt: 'yesterday',
        donor: 'Ada',
      }),
    ).toEqual(['amount.currency', 'amount.value', 'donor', 'memberId', 'receivedAt']);
    expect(fields(newContributionBody, {})).toEqual(['amount']);
  });

  it('keeps the amount exact and refuses a receipt time in the future', () => {
    const body = parseJsonBody(
      withBody({ ...amount('19.9'), memberId: memberId.toUpperCase() }),
      newContributionBody,
    );
    const contribution = newContribution('c-1', body, now);
    expect(contribution).toEqual({
      id: 'c-1',
      amount: { value: '19.90', currency: 'EUR' },
      memberId,
      receivedAt: now.toISOString(),
      recordedAt: now.toISOString(),
    });
    const later = { ...body, receivedAt: '2026-11-22T10:06:00Z' };
    expect(() => newContribution('c-2', later, now)).toThrow(ValidationError);
  });
});

describe('POST /timebank/payouts body', () => {
  const payout = (hours: unknown) => ({ memberId, hours });

  it('takes positive hours with at most two decimals', () => {
    for (const hours of [1, 2.5, 2.25, 0.01, 10_000])
      expect(fields(settlePayoutBody, payout(hours)), String(hours)).toEqual([]);
    // The JSON text 2.50 is the number 2.5.
    expect(issues(settlePayoutBody, withRawBody(`{"memberId":"${memberId}","hours":2.50}`))).toEqual([]);
  });

  it('refuses zero, negatives, three decimals, strings and absurd amounts, naming hours', () => {
    for (const hours of [0, -1, 2.255, 0.001, '2', null, 10_000.01, 1e21]) {
      expect(fields(settlePayoutBody, payout(hours)), String(hours)).toEqual(['hours']);
    }
    expect(fields(settlePayoutBody, { hours: 1, note: '' })).toEqual(['memberId', 'note']);
  });
});

describe('POST /sanctuary/files body', () => {
  it('takes a name and an expiry in the future', () => {
    const body = parseJsonBody(
      withBody({ name: ' Statement.pdf ', expiresAt: '2026-11-22T11:00:00+01:00' }),
      registerFileBody,
    );
    expect(fields(registerFileBody, { name: 'a', expiresAt: '2026-11-22T12:00:00Z' })).toEqual([]);
    expect(() => registerFile('f-1', body, now)).toThrow(ValidationError);
    expect(registerFile('f-1', { ...body, expiresAt: '2026-11-22T10:00:01Z' }, now)).toEqual({
      id: 'f-1',
      name: 'Statement.pdf',
      expiresAt: '2026-11-22T10:00:01.000Z',
      createdAt: now.toISOString(),
      expiredAt: null,
    });
  });

  it('names a blank name, a local time and unknown fields', () => {
    expect(fields(registerFileBody, { name: '  ', expiresAt: '2027-01-01T00:00:00', owner: 'x' })).toEqual([
      'expiresAt',
      'name',
      'owner',
    ]);
  });
});

describe('payloads of member, contribution, payout and file events', () => {
  const organisationId = '5f0c7a2e-8d1b-4c3e-9a6f-2b7d4e1c0a93';
  const id = 'c6b5e0de-1d5b-4f0e-a4cc-3f1b7a0d9e21';
  const envelope = (event: DomainEvent['event'], data: Record<string, unknown>) =>
    JSON.parse(webhookBody({ eventId: 'e', event, organisationId, occurredAt: now.toISOString(), data }, 1));

  it('fit the documented schemas and carry ids, amounts and times, never names or notes', () => {
    const contribution = newContribution(id, { amount: { value: '25', currency: 'EUR' }, memberId }, now);
    const payout = settlePayout(id, { memberId, hours: 2.5, note: 'Garden work for Ada Lovelace' }, now);
    const bodies = {
      'contribution.received': envelope('contribution.received', contributionEventData(contribution)),
      'timebank.payout.settled': envelope('timebank.payout.settled', payoutEventData(payout)),
      'sanctuary.file.expired': envelope(
        'sanctuary.file.expired',
        fileExpiredEventData(id, '2026-11-22T09:59:00.000Z', now.toISOString()),
      ),
    } as const;
    for (const [event, body] of Object.entries(bodies)) {
      const parsed = webhookPayloadSchemas[event as keyof typeof bodies].safeParse(body);
      expect(parsed.success, `${event}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      expect(body.attempt).toBe(1);
    }
    expect(bodies['contribution.received'].contribution).toEqual({
      id,
      amount: { value: '25.00', currency: 'EUR' },
      memberId,
      receivedAt: now.toISOString(),
    });
    expect(bodies['timebank.payout.settled'].payout).toEqual({
      id,
      memberId,
      hours: 2.5,
      settledAt: now.toISOString(),
    });
    expect(JSON.stringify(bodies)).not.toMatch(/Ada|Garden|note|name/);
  });
});
