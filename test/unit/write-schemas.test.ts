import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ZodMiniType } from 'zod/mini';
import { decimalPlaces } from '../../shared/domain/decimal.js';
import { ValidationError } from '../../shared/domain/errors.js';
import { newMember } from '../../shared/domain/member.js';
import { newEvent } from '../../shared/domain/public-event.js';
import { MAX_BODY_BYTES, parseJsonBody, parseQuery } from '../../shared/http/request.js';
import { eventsQuery, newEventBody } from '../../shared/schemas/events.js';
import { newImpactReportBody } from '../../shared/schemas/impact.js';
import { newMemberBody } from '../../shared/schemas/members.js';
import { settlePayoutBody } from '../../shared/schemas/timebank.js';
import { thrownBy, validationIssuesOf } from '../support/throws.js';

const withBody = (body: unknown) =>
  ({
    body: JSON.stringify(body),
    isBase64Encoded: false,
    headers: { 'content-type': 'application/json' },
  }) as unknown as APIGatewayProxyEvent;

const issues = <T>(schema: ZodMiniType<T>, body: unknown) =>
  validationIssuesOf(() => parseJsonBody(withBody(body), schema));

const fields = <T>(schema: ZodMiniType<T>, body: unknown) =>
  issues(schema, body)
    .map((i) => i.field)
    .sort();

describe('POST /members body', () => {
  it('takes a membership type, and optionally a region and a join date', () => {
    expect(parseJsonBody(withBody({ membershipType: 'regular' }), newMemberBody)).toEqual({
      membershipType: 'regular',
    });
    expect(
      fields(newMemberBody, { membershipType: 'student', region: 'DE-BY', joinedAt: '2025-02-28' }),
    ).toEqual([]);
  });

  it('names every offending field, unknown ones included, and says why in English', () => {
    const found = issues(newMemberBody, {
      membershipType: 'has spaces',
      joinedAt: '2025-02-30',
      region: '',
      name: 'Ada',
    });
    expect(found.map((i) => i.field).sort()).toEqual(['joinedAt', 'membershipType', 'name', 'region']);
    for (const issue of found) expect(issue.message).not.toBe('Invalid input');
  });

  it('refuses a missing type and a join date in the future', () => {
    expect(fields(newMemberBody, {})).toEqual(['membershipType']);
    const now = new Date('2026-11-22T10:00:00Z');
    expect(newMember('id', { membershipType: 'a', joinedAt: '2026-11-23' }, now).joinedAt).toBe('2026-11-23');
    expect(() => newMember('id', { membershipType: 'a', joinedAt: '2026-11-24' }, now)).toThrow(
      ValidationError,
    );
    expect(newMember('id', { membershipType: 'a' }, now)).toMatchObject({
      joinedAt: '2026-11-22',
      region: null,
    });
  });
});

describe('POST /events body', () => {
  const valid = { title: ' Spring fair ', startsAt: '2027-04-01T10:00:00+02:00' };

  it('trims text, defaults public to true and stores times in UTC', () => {
    const input = parseJsonBody(withBody(valid), newEventBody);
    expect(input).toEqual({ title: 'Spring fair', startsAt: valid.startsAt, public: true });
    expect(newEvent('id', input, new Date('2026-01-01T00:00:00Z'))).toMatchObject({
      startsAt: '2027-04-01T08:00:00.000Z',
      endsAt: null,
      location: null,
      url: null,
      public: true,
    });
  });

  it('refuses an end before the start, naming endsAt', () => {
    expect(fields(newEventBody, { ...valid, endsAt: '2027-04-01T07:59:59Z' })).toEqual(['endsAt']);
    expect(fields(newEventBody, { ...valid, endsAt: '2027-04-01T08:00:00Z' })).toEqual([]);
  });

  it('names every bad field: blank title, local time, non-http url, non-boolean public, unknown field', () => {
    expect(
      fields(newEventBody, {
        title: '   ',
        startsAt: '2027-04-01T10:00:00',
        url: 'javascript:alert(1)',
        public: 'yes',
        organiser: 'x',
      }),
    ).toEqual(['organiser', 'public', 'startsAt', 'title', 'url']);
  });
});

describe('GET /events query', () => {
  const query = (parameters: Record<string, string>) =>
    parseQuery({ queryStringParameters: parameters } as unknown as APIGatewayProxyEvent, eventsQuery);

  it('reads limit as a whole number from 1 to 100', () => {
    expect(query({ limit: '100' }).limit).toBe(100);
    for (const limit of ['0', '101', '2.5', 'ten', ''])
      expect(() => query({ limit }), limit).toThrow(ValidationError);
  });

  it('names query parameters as query.<name>, unknown ones included', () => {
    const error = thrownBy(() => query({ limit: '0', from: 'yesterday', sort: 'asc' }), ValidationError);
    expect(error.issues.map((i) => i.field).sort()).toEqual(['query.from', 'query.limit', 'query.sort']);
  });

  it('refuses a `to` before `from`', () => {
    expect(() => query({ from: '2027-01-02T00:00:00Z', to: '2027-01-01T00:00:00Z' })).toThrow(
      ValidationError,
    );
  });
});

describe('POST /impact body', () => {
  const valid = {
    title: 'Impact 2026',
    periodStart: '2026-01-01',
    periodEnd: '2026-12-31',
    summary: 'A good year.',
    metrics: [
      { key: 'volunteer_hours', label: 'Volunteer hours', value: 1280, unit: 'h' },
      { key: 'trees', label: 'Trees planted', value: 310 },
    ],
  };

  it('accepts a report with metrics, the unit optional', () => {
    expect(fields(newImpactReportBody, valid)).toEqual([]);
  });

  it('refuses a period that ends before it starts and a metric key used twice, naming each', () => {
    expect(fields(newImpactReportBody, { ...valid, periodEnd: '2025-12-31' })).toEqual(['periodEnd']);
    const duplicate = { ...valid, metrics: [...valid.metrics, { key: 'trees', label: 'Again', value: 1 }] };
    expect(fields(newImpactReportBody, duplicate)).toEqual(['metrics[2].key']);
  });

  it('names every bad metric field and unknown ones at any depth', () => {
    const bad = {
      ...valid,
      metrics: [{ key: 'Bad Key', label: '', value: '12', colour: 'red' }],
      extra: true,
    };
    expect(fields(newImpactReportBody, bad)).toEqual([
      'extra',
      'metrics[0].colour',
      'metrics[0].key',
      'metrics[0].label',
      'metrics[0].value',
    ]);
  });

  it('refuses a body over 64 KB before parsing it', () => {
    const big = { ...valid, summary: 'x'.repeat(MAX_BODY_BYTES) };
    expect(() => parseJsonBody(withBody(big), newImpactReportBody)).toThrow(/at most 64 KB/);
  });
});

describe('numbers in a body', () => {
  /** The body as a client writes it: JSON text, where 1e300 and 5e-324 are numbers like any other. */
  const raw = (text: string) =>
    ({
      body: text,
      isBase64Encoded: false,
      headers: { 'content-type': 'application/json' },
    }) as unknown as APIGatewayProxyEvent;
  const metricValueIssues = (value: string) =>
    validationIssuesOf(() =>
      parseJsonBody(
        raw(
          `{"title":"t","periodStart":"2026-01-01","periodEnd":"2026-01-31","summary":"s","metrics":[{"key":"k","label":"l","value":${value}}]}`,
        ),
        newImpactReportBody,
      ),
    ).map((i) => i.field);
  const hoursIssues = (hours: string) =>
    validationIssuesOf(() =>
      parseJsonBody(
        raw(`{"memberId":"5f0c7a2e-8d1b-4c3e-9a6f-2b7d4e1c0a93","hours":${hours}}`),
        settlePayoutBody,
      ),
    ).map((i) => i.field);

  it.each(['1e300', '-1e300', '5e-324', '9007199254740992', '0.0000001', '1.1234567', '1e-7'])(
    'refuse a metric value of %s: beyond ±(2^53 − 1) or more than six decimals',
    (value) => {
      expect(metricValueIssues(value)).toEqual(['metrics[0].value']);
    },
  );

  it.each(['9007199254740991', '-9007199254740991', '0.000001', '-0', '0', '12.5', '1e3'])(
    'take a metric value of %s',
    (value) => {
      expect(metricValueIssues(value)).toEqual([]);
    },
  );

  it.each(['0', '-1', '0.001', '2.555', '1e-7', '10000.01', '1e300'])(
    'refuse hours of %s: more than zero, at most 10000, a multiple of 0.01',
    (hours) => {
      expect(hoursIssues(hours)).toEqual(['hours']);
    },
  );

  it.each(['0.01', '0.29', '2.5', '10000', '1e1'])('take hours of %s', (hours) => {
    expect(hoursIssues(hours)).toEqual([]);
  });

  it('count decimal places as the number was written, exponent form included', () => {
    expect([0.1, 0.29, 1e-7, 1.5e-7, 5e-324, 1e21, 12, 0.1 + 0.2].map(decimalPlaces)).toEqual([
      1, 2, 7, 8, 324, 0, 0, 17,
    ]);
  });
});
