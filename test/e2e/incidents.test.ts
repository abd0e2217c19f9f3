import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, call, newOrganisation, newToken } from '../support/api.js';

interface Incident {
  id: string;
  status: string;
  severity: string;
  category: string;
  detectedAt: string;
  history: { status: string; at: string; tokenId: string; note?: string }[];
  [field: string]: unknown;
}

let writer: { token: string; id: string };
let reader: { token: string; id: string };

const json = (body: unknown, extra: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...extra },
  body: JSON.stringify(body),
});

async function declare(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return call('/incidents', {
    token: writer.token,
    ...json(
      {
        severity: 'high',
        category: 'confidentiality',
        detectedAt: new Date(Date.now() - 3600_000).toISOString(),
        ...body,
      },
      headers,
    ),
  });
}

beforeAll(async () => {
  const org = await newOrganisation('--tier', 'enterprise', '--rate-limit', '10000');
  writer = await newToken(org.id, 'read,write');
  reader = await newToken(org.id, 'read');
});

describe('incidents', () => {
  it('are declared with 201, a Location and a first history entry naming the token', async () => {
    const response = await declare({ title: 'Stolen laptop' });
    expect(response.status).toBe(201);
    const incident = await bodyOf<Incident>(response);
    expect(response.headers.get('location')).toMatch(new RegExp(`/incidents/${incident.id}$`));
    expect(incident).toMatchObject({
      status: 'declared',
      severity: 'high',
      category: 'confidentiality',
      title: 'Stolen laptop',
    });
    expect(incident.history).toEqual([{ status: 'declared', at: expect.any(String), tokenId: writer.id }]);
    expect(incident).not.toHaveProperty('organisationId');
    const read = await bodyOf<Incident>(await call(`/incidents/${incident.id}`, { token: reader.token }));
    expect(read).toEqual(incident);
  });

  it('move through their lifecycle and keep every move in their history', async () => {
    const { id } = await bodyOf<Incident>(await declare());
    const contain = await call(`/incidents/${id}/contain`, {
      token: writer.token,
      ...json({ note: 'Access revoked' }),
    });
    expect(contain.status).toBe(200);
    const notify = await call(`/incidents/${id}/notify`, {
      token: writer.token,
      ...json({ authorityReference: 'DPA-1' }),
    });
    expect((await bodyOf<Incident>(notify)).status).toBe('notified');
    const close = await call(`/incidents/${id}/close`, { token: writer.token, method: 'POST' });
    const closed = await bodyOf<Incident>(close);
    expect(closed.status).toBe('closed');
    expect(closed.history.map((h) => h.status)).toEqual(['declared', 'contained', 'notified', 'closed']);
    expect(closed.history[1]?.note).toBe('Access revoked');
    expect(closed.authorityReference).toBe('DPA-1');
  });

  it('refuse a move that the lifecycle does not allow with 409 invalid_transition', async () => {
    const { id } = await bodyOf<Incident>(await declare());
    await call(`/incidents/${id}/close`, { token: writer.token, method: 'POST' });
    const again = await call(`/incidents/${id}/contain`, { token: writer.token, method: 'POST' });
    expect(again.status).toBe(409);
    expect((await bodyOf(again)).code).toBe('invalid_transition');
  });

  it('are listed newest first, a page at a time', async () => {
    const org = await newOrganisation();
    const own = await newToken(org.id);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await call('/incidents', {
        token: own.token,
        ...json({ severity: 'low', category: 'integrity', detectedAt: new Date().toISOString() }),
      });
      ids.push((await bodyOf<Incident>(response)).id);
    }
    const first = await bodyOf<{ data: Incident[]; nextCursor: string }>(
      await call('/incidents?limit=2', { token: own.token }),
    );
    expect(first.data.map((i) => i.id)).toEqual([ids[2], ids[1]]);
    const second = await bodyOf<{ data: Incident[]; nextCursor: string | null }>(
      await call(`/incidents?limit=2&cursor=${first.nextCursor}`, { token: own.token }),
    );
    expect(second.data.map((i) => i.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeNull();
  });

  it("are invisible to another organisation: 404 for every call, and its cursors don't work", async () => {
    const { id } = await bodyOf<Incident>(await declare());
    const other = await newToken((await newOrganisation()).id);
    expect((await call(`/incidents/${id}`, { token: other.token })).status).toBe(404);
    expect((await call(`/incidents/${id}/close`, { token: other.token, method: 'POST' })).status).toBe(404);
    const page = await bodyOf<{ data: Incident[]; nextCursor: string }>(
      await call('/incidents?limit=1', { token: writer.token }),
    );
    const foreign = await call(`/incidents?cursor=${page.nextCursor}`, { token: other.token });
    expect(foreign.status).toBe(400);
    expect(
      (await bodyOf<{ data: Incident[] }>(await call('/incidents', { token: other.token }))).data,
    ).toEqual([]);
  });

  it('answer 404 for an unknown or malformed id', async () => {
    expect((await call(`/incidents/${randomUUID()}`, { token: reader.token })).status).toBe(404);
    expect((await call('/incidents/not-a-uuid', { token: reader.token })).status).toBe(404);
  });
});

describe('bad input', () => {
  it('names every offending field and stores nothing', async () => {
    const before = await bodyOf<{ data: Incident[] }>(
      await call('/incidents?limit=100', { token: reader.token }),
    );
    const response = await call('/incidents', {
      token: writer.token,
      ...json({ severity: 'catastrophic', category: 'integrity', detectedAt: 'yesterday', colour: 'red' }),
    });
    expect(response.status).toBe(400);
    const problem = await bodyOf<{ code: string; errors: { field: string }[] }>(response);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors.map((e) => e.field).sort()).toEqual(['colour', 'detectedAt', 'severity']);
    const after = await bodyOf<{ data: Incident[] }>(
      await call('/incidents?limit=100', { token: reader.token }),
    );
    expect(after.data.length).toBe(before.data.length);
  });

  it('refuses malformed JSON, a detection time in the future and an oversized body', async () => {
    const malformed = await call('/incidents', {
      token: writer.token,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"severity":',
    });
    expect([malformed.status, (await bodyOf(malformed)).code]).toEqual([400, 'malformed_json']);
    const future = await declare({ detectedAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect(future.status).toBe(400);
    const huge = await declare({ description: 'x'.repeat(70 * 1024) });
    expect([huge.status, (await bodyOf(huge)).code]).toEqual([413, 'payload_too_large']);
  });

  it('answers 403 insufficient_scope to a read token on a write and a write token on a read', async () => {
    const readOnWrite = await call('/incidents', { token: reader.token, ...json({}) });
    expect(readOnWrite.status).toBe(403);
    expect(readOnWrite.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="write"',
    );
    expect((await bodyOf(readOnWrite)).code).toBe('insufficient_scope');
    const writeOnly = await newToken((await newOrganisation()).id, 'write');
    const writeOnRead = await call('/incidents', { token: writeOnly.token });
    expect([writeOnRead.status, (await bodyOf(writeOnRead)).code]).toEqual([403, 'insufficient_scope']);
  });
});

describe('idempotent writes', () => {
  it('return the first result for a repeat with the same key and body, and change nothing', async () => {
    const key = randomUUID();
    const body = { severity: 'medium', category: 'availability', detectedAt: '2026-11-01T10:00:00.000Z' };
    const first = await call('/incidents', {
      token: writer.token,
      ...json(body, { 'Idempotency-Key': key }),
    });
    const second = await call('/incidents', {
      token: writer.token,
      ...json(body, { 'Idempotency-Key': key }),
    });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await bodyOf(second)).toEqual(await bodyOf(first));
  });

  it('answer 409 when the key is reused with another body', async () => {
    const key = randomUUID();
    await declare({}, { 'Idempotency-Key': key });
    const other = await declare({ severity: 'low' }, { 'Idempotency-Key': key });
    expect(other.status).toBe(409);
    expect((await bodyOf(other)).code).toBe('idempotency_conflict');
  });

  it('make concurrent repeats produce one incident', async () => {
    const org = await newOrganisation();
    const own = await newToken(org.id);
    const key = randomUUID();
    const body = {
      severity: 'critical',
      category: 'confidentiality',
      detectedAt: '2026-11-01T10:00:00.000Z',
    };
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        call('/incidents', { token: own.token, ...json(body, { 'Idempotency-Key': key }) }),
      ),
    );
    const ids = await Promise.all(responses.map(async (r) => (await bodyOf<Incident>(r)).id));
    expect(new Set(ids).size).toBe(1);
    expect(responses.every((r) => r.status === 201)).toBe(true);
    const list = await bodyOf<{ data: Incident[] }>(await call('/incidents', { token: own.token }));
    expect(list.data).toHaveLength(1);
  });

  it('move an incident once for a repeated transition', async () => {
    const { id } = await bodyOf<Incident>(await declare());
    const key = randomUUID();
    const first = await call(`/incidents/${id}/contain`, {
      token: writer.token,
      method: 'POST',
      headers: { 'Idempotency-Key': key },
    });
    const again = await call(`/incidents/${id}/contain`, {
      token: writer.token,
      method: 'POST',
      headers: { 'Idempotency-Key': key },
    });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect((await bodyOf<Incident>(again)).history).toHaveLength(2);
  });
});
