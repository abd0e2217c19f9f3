import { beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, call, newOrganisation, newToken, postJson, problemOf } from '../support/api.js';

let token: string;

const report = (title: string) => ({
  title,
  periodStart: '2026-01-01',
  periodEnd: '2026-12-31',
  summary: 'Our community work in numbers.',
  metrics: [
    { key: 'volunteer_hours', label: 'Volunteer hours', value: 1280, unit: 'h' },
    { key: 'events_held', label: 'Events held', value: 42 },
  ],
});

beforeAll(async () => {
  const org = await newOrganisation();
  token = (await newToken(org.id, 'read,write')).token;
});

describe('impact report', () => {
  it('is 404 no_report until one is published, then the latest published one', async () => {
    const none = await problemOf(await call('/impact', { token }), 404, 'no_report');
    expect(none.status).toBe(404);

    const created = await postJson('/impact', token, report('Impact report 2026'));
    expect(created.status).toBe(201);
    const first = await bodyOf(created);
    expect(first).toMatchObject({
      title: 'Impact report 2026',
      periodStart: '2026-01-01',
      periodEnd: '2026-12-31',
      metrics: [
        { key: 'volunteer_hours', label: 'Volunteer hours', value: 1280, unit: 'h' },
        { key: 'events_held', label: 'Events held', value: 42, unit: null },
      ],
    });
    expect(await bodyOf(await call('/impact', { token }))).toEqual(first);

    const second = await bodyOf(await postJson('/impact', token, report('Revised report 2026')));
    expect((await bodyOf(await call('/impact', { token }))).id).toBe(second.id);
  });

  it('answers 304 to If-None-Match until another report is published', async () => {
    await postJson('/impact', token, report('Baseline'));
    const etag = String((await call('/impact', { token })).headers.get('etag'));
    expect((await call('/impact', { token, headers: { 'If-None-Match': etag } })).status).toBe(304);
    await postJson('/impact', token, report('Newer'));
    expect((await call('/impact', { token, headers: { 'If-None-Match': etag } })).status).toBe(200);
  });

  it('refuses a bad report, naming every field: reversed period, duplicate metric key, unknown field', async () => {
    const reversed = await problemOf(
      await postJson('/impact', token, { ...report('x'), periodEnd: '2025-12-31' }),
      400,
      'validation_failed',
    );
    expect(reversed.errors?.map((e) => e.field)).toEqual(['periodEnd']);
    const duplicate = report('x');
    duplicate.metrics.push({ key: 'events_held', label: 'Again', value: 1, unit: 'x' });
    const dup = await problemOf(await postJson('/impact', token, duplicate), 400, 'validation_failed');
    expect(dup.errors?.map((e) => e.field)).toEqual(['metrics[2].key']);
    const bad = await problemOf(
      await postJson('/impact', token, { title: '', summary: 3, metrics: [{ key: 'A' }], author: 'Ada' }),
      400,
      'validation_failed',
    );
    expect(bad.errors?.map((e) => e.field).sort()).toEqual(
      [
        'author',
        'metrics[0].key',
        'metrics[0].label',
        'metrics[0].value',
        'periodEnd',
        'periodStart',
        'summary',
        'title',
      ].sort(),
    );
  });

  it('refuses a metric value beyond ±(2^53 − 1) or with more than six decimals with 400, never 500', async () => {
    const withValues = (...values: unknown[]) => ({
      ...report('Bounds'),
      metrics: values.map((value, i) => ({ key: `m${i}`, label: `Metric ${i}`, value })),
    });
    // Sent as JSON text: JSON.stringify would not write 1e300 and 5e-324 as a client might.
    const body = JSON.stringify(withValues(901, 902, 903, 904, 905))
      .replace('"value":901', '"value":1e300')
      .replace('"value":902', '"value":-1e300')
      .replace('"value":903', '"value":5e-324')
      .replace('"value":904', '"value":9007199254740992')
      .replace('"value":905', '"value":0.1234567');
    const problem = await problemOf(await postJson('/impact', token, body), 400, 'validation_failed');
    expect(problem.errors?.map((e) => e.field)).toEqual([0, 1, 2, 3, 4].map((i) => `metrics[${i}].value`));
    const edges = withValues(9007199254740991, -9007199254740991, 0.000001, 12.5, -3);
    const created = await bodyOf<{ metrics: { value: number }[] }>(await postJson('/impact', token, edges));
    expect(created.metrics.map((m) => m.value)).toEqual([
      9007199254740991, -9007199254740991, 0.000001, 12.5, -3,
    ]);
  });
});
