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
});
