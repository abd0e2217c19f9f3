import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyOf,
  call,
  declareIncident,
  newOrganisation,
  newToken,
  postJson,
  problemOf,
  unthrottledOrganisation,
} from '../support/api.js';
import { forIncident, receivedBeforeMarker } from '../support/marker.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

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
let reader: { token: string };
const receivers: Receiver[] = [];

const declare = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  declareIncident(writer.token, body, headers);

beforeAll(async () => {
  const org = await unthrottledOrganisation();
  writer = { token: org.writer, id: org.writerId };
  reader = { token: org.reader };
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
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
    expect(incident.history).toEqual([{ status: 'declared', at: incident.declaredAt, tokenId: writer.id }]);
    expect(Date.parse(String(incident.declaredAt))).toBeGreaterThan(Date.now() - 60_000);
    expect(incident).not.toHaveProperty('organisationId');
    const read = await bodyOf<Incident>(await call(`/incidents/${incident.id}`, { token: reader.token }));
    expect(read).toEqual(incident);
  });

  it('move through their lifecycle and keep every move in their history', async () => {
    const { id } = await bodyOf<Incident>(await declare());
    const contain = await postJson(`/incidents/${id}/contain`, writer.token, { note: 'Access revoked' });
    expect(contain.status).toBe(200);
    const notify = await postJson(`/incidents/${id}/notify`, writer.token, { authorityReference: 'DPA-1' });
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
    await problemOf(again, 409, 'invalid_transition');
  });

  it('are listed newest first, a page at a time', async () => {
    const org = await newOrganisation();
    const own = await newToken(org.id);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await declareIncident(own.token, {
        severity: 'low',
        category: 'integrity',
        detectedAt: new Date().toISOString(),
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
    const response = await postJson('/incidents', writer.token, {
      severity: 'catastrophic',
      category: 'integrity',
      detectedAt: 'yesterday',
      colour: 'red',
    });
    const problem = await problemOf(response, 400, 'validation_failed');
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(['colour', 'detectedAt', 'severity']);
    const after = await bodyOf<{ data: Incident[] }>(
      await call('/incidents?limit=100', { token: reader.token }),
    );
    expect(after.data.length).toBe(before.data.length);
  });

  it('refuses malformed JSON, a detection time in the future and an oversized body', async () => {
    const malformed = await postJson('/incidents', writer.token, '{"severity":');
    await problemOf(malformed, 400, 'malformed_json');
    const future = await declare({ detectedAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect(future.status).toBe(400);
    const huge = await declare({ description: 'x'.repeat(70 * 1024) });
    await problemOf(huge, 413, 'payload_too_large');
  });

  it('answers 403 insufficient_scope to a read token on a write and a write token on a read', async () => {
    const readOnWrite = await postJson('/incidents', reader.token, {});
    expect(readOnWrite.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="write"',
    );
    await problemOf(readOnWrite, 403, 'insufficient_scope');
    const writeOnly = await newToken((await newOrganisation()).id, 'write');
    await problemOf(await call('/incidents', { token: writeOnly.token }), 403, 'insufficient_scope');
  });
});

describe('idempotent writes', () => {
  it('return the first result for a repeat with the same key and body, and change nothing', async () => {
    // An organisation of its own, so that its list and its webhooks are this test's alone.
    const own = await unthrottledOrganisation();
    const hook = await startReceiver();
    receivers.push(hook);
    expect((await postJson('/webhooks', own.writer, { url: hook.url })).status).toBe(201);
    const key = randomUUID();
    // Detected an hour ago: its deadline alarm is far off, so every webhook here comes from the requests.
    const detectedAt = new Date(Date.now() - 3600_000).toISOString();
    const body = { severity: 'medium', category: 'availability', detectedAt };
    const first = await declareIncident(own.writer, body, { 'Idempotency-Key': key });
    const second = await declareIncident(own.writer, body, { 'Idempotency-Key': key });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const incident = await bodyOf<Incident>(first);
    expect(await bodyOf(second)).toEqual(incident);

    // One incident, as the first request left it.
    const list = await bodyOf<{ data: Incident[] }>(await call('/incidents', { token: own.reader }));
    expect(list.data.map((i) => i.id)).toEqual([incident.id]);
    expect(await bodyOf(await call(`/incidents/${incident.id}`, { token: own.reader }))).toEqual(incident);

    // One webhook for the two requests: a later incident's arrives, and nothing more came before it.
    const marker = await bodyOf<Incident>(await declareIncident(own.writer));
    const sent = await receivedBeforeMarker(hook, forIncident(incident.id), forIncident(marker.id));
    expect(sent.map((w) => [w.body.event, w.body.attempt])).toEqual([['incident.declared', 1]]);
  });

  it('answer 409 when the key is reused with another body', async () => {
    const key = randomUUID();
    await declare({}, { 'Idempotency-Key': key });
    const other = await declare({ severity: 'low' }, { 'Idempotency-Key': key });
    await problemOf(other, 409, 'idempotency_conflict');
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
      Array.from({ length: 5 }, () => declareIncident(own.token, body, { 'Idempotency-Key': key })),
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
