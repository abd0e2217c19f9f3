import { beforeAll, describe, expect, it } from 'vitest';
import type { MemberStatistics as Statistics } from '../../shared/domain/member-statistics.js';
import {
  bodyOf,
  call,
  newOrganisation,
  newToken,
  postJson,
  problemOf,
  unthrottledOrganisation,
} from '../support/api.js';

const today = () => new Date().toISOString().slice(0, 10);
let writer: string;
let reader: string;

beforeAll(async () => {
  // A write-only writer: the scope tests read with it.
  ({ writer, reader } = await unthrottledOrganisation('write'));
});

describe('POST /members', () => {
  it('records a member with an id and categories only, and answers 201', async () => {
    const response = await postJson('/members', writer, { membershipType: 'regular', region: 'north' });
    expect(response.status).toBe(201);
    const member = await bodyOf(response);
    expect(Object.keys(member).sort()).toEqual(['createdAt', 'id', 'joinedAt', 'membershipType', 'region']);
    expect(member).toMatchObject({ membershipType: 'regular', region: 'north', joinedAt: today() });
    const explicit = await bodyOf(
      await postJson('/members', writer, { membershipType: 'student', joinedAt: '2024-02-29' }),
    );
    expect(explicit).toMatchObject({ region: null, joinedAt: '2024-02-29' });
  });

  it('refuses personal data and every other bad field in one 400, storing nothing', async () => {
    const org = await newOrganisation();
    const { token } = await newToken(org.id, 'read,write');
    const response = await postJson('/members', token, {
      membershipType: 'Regular member',
      joinedAt: '2030-01-01',
      region: 42,
      name: 'Ada Lovelace',
      email: 'ada@example.org',
    });
    const problem = await problemOf(response, 400, 'validation_failed');
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(['email', 'membershipType', 'name', 'region']);
    // The future date is refused once the fields are well-formed.
    const future = await problemOf(
      await postJson('/members', token, { membershipType: 'regular', joinedAt: '2999-01-01' }),
      400,
      'validation_failed',
    );
    expect(future.errors).toEqual([{ field: 'joinedAt', message: 'The join date cannot be in the future.' }]);
    const stats = await bodyOf<Statistics>(await call('/members', { token }));
    expect(stats.total).toEqual({ count: 0, withheld: false });
  });

  it('answers malformed JSON, a wrong media type and an oversized body with their problems', async () => {
    await problemOf(await postJson('/members', writer, '{"membershipType":'), 400, 'malformed_json');
    await problemOf(
      await call('/members', {
        method: 'POST',
        token: writer,
        headers: { 'Content-Type': 'text/plain' },
        body: 'regular',
      }),
      415,
      'unsupported_media_type',
    );
    await problemOf(
      await postJson('/members', writer, { membershipType: 'regular', padding: 'x'.repeat(70 * 1024) }),
      413,
      'payload_too_large',
    );
  });

  it('records a retried request once when it carries the same Idempotency-Key', async () => {
    const { writer: token } = await unthrottledOrganisation();
    const key = `member-${Date.now()}`;
    const body = { membershipType: 'regular' };
    const first = await postJson('/members', token, body, { 'Idempotency-Key': key });
    const again = await postJson('/members', token, body, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await bodyOf(again)).id).toBe((await bodyOf(first)).id);
    for (let i = 0; i < 4; i++) await postJson('/members', token, body);
    const stats = await bodyOf<Statistics>(await call('/members', { token }));
    expect(stats.total.count).toBe(5);
  });
});

describe('GET /members', () => {
  it('publishes large groups, withholds small ones and their complements, and never a per-person figure', async () => {
    const { writer: token } = await unthrottledOrganisation();
    const record = (membershipType: string, region?: string) =>
      postJson('/members', token, { membershipType, ...(region ? { region } : {}) });
    for (let i = 0; i < 10; i++) expect((await record('regular', 'north')).status).toBe(201);
    for (let i = 0; i < 6; i++) await record('student', 'south');
    for (let i = 0; i < 2; i++) await record('honorary');

    const response = await call('/members', { token });
    expect(response.status).toBe(200);
    const stats = await bodyOf<Statistics>(response);
    expect(stats.minimumGroupSize).toBe(5);
    expect(stats.total).toEqual({ count: 18, withheld: false });
    expect(stats.joined).toEqual({
      last30Days: { count: 18, withheld: false },
      last365Days: { count: 18, withheld: false },
    });
    // honorary (2) is small; student is withheld too, or 18 − 10 − 6 would give honorary away.
    expect(stats.byMembershipType).toEqual([
      { membershipType: 'honorary', count: null, withheld: true },
      { membershipType: 'regular', count: 10, withheld: false },
      { membershipType: 'student', count: null, withheld: true },
    ]);
    expect(stats.byRegion).toEqual([
      { region: 'north', count: 10, withheld: false },
      { region: 'south', count: null, withheld: true },
      { region: null, count: null, withheld: true },
    ]);
    expect(JSON.stringify(stats)).not.toMatch(/"id"|[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it('answers 304 to If-None-Match until a member is recorded', async () => {
    const first = await call('/members', { token: reader });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(first.headers.get('vary')).toBe('Authorization, Origin');
    const unchanged = await call('/members', { token: reader, headers: { 'If-None-Match': String(etag) } });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    // A 304 still counts against the budget, and says so.
    expect(Number(unchanged.headers.get('ratelimit-remaining'))).toBeLessThan(
      Number(unchanged.headers.get('ratelimit-limit')),
    );
    await postJson('/members', writer, { membershipType: 'regular' });
    const changed = await call('/members', { token: reader, headers: { 'If-None-Match': String(etag) } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('refuses unknown query parameters, naming them', async () => {
    const problem = await problemOf(
      await call('/members?region=north', { token: reader }),
      400,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => e.field)).toEqual(['query.region']);
  });
});

describe('scopes', () => {
  it('refuses a write with a read-only token and a read with a write-only token: 403 insufficient_scope', async () => {
    const readOnWrite = await postJson('/members', reader, { membershipType: 'regular' });
    expect(readOnWrite.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="write"',
    );
    await problemOf(readOnWrite, 403, 'insufficient_scope');
    const writeOnRead = await call('/members', { token: writer });
    expect(writeOnRead.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="read"',
    );
    await problemOf(writeOnRead, 403, 'insufficient_scope');
    for (const path of ['/events', '/impact']) {
      await problemOf(await postJson(path, reader, {}), 403, 'insufficient_scope');
      await problemOf(await call(path, { token: writer }), 403, 'insufficient_scope');
    }
  });

  it('answers 401 without a token', async () => {
    for (const path of ['/members', '/events', '/impact'])
      await problemOf(await call(path), 401, 'unauthorized');
    await problemOf(
      await postJson('/members', undefined, { membershipType: 'regular' }),
      401,
      'unauthorized',
    );
  });
});
