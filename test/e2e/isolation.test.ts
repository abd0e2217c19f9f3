import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RouteKey, routeKey, routes } from '../../shared/topology/routes.js';
import { bodyOf, call, newToken, postJson, problemOf, unthrottledOrganisation } from '../support/api.js';

type Tenant = Awaited<ReturnType<typeof unthrottledOrganisation>>;

let owner: Tenant;
let stranger: Tenant;

async function created(response: Response): Promise<string> {
  if (response.status !== 201)
    throw new Error(`expected 201, got ${response.status} ${await response.text()}`);
  return (await bodyOf<{ id: string }>(response)).id;
}

const newMember = (tenant: Tenant) =>
  postJson('/members', tenant.writer, { membershipType: 'regular' }).then(created);

interface Resource {
  /** Creates one in the tenant's organisation and returns its id. */
  create(tenant: Tenant): Promise<string>;
  /** Everything the owner can read of it, to show that a stranger's calls changed nothing. */
  read(tenant: Tenant, id: string): Promise<unknown>;
}

const readJson = async (tenant: Tenant, path: string) => {
  const response = await call(path, { token: tenant.reader });
  return { status: response.status, etag: response.headers.get('etag'), body: await response.json() };
};

/**
 * Every resource a path names by `{id}`, keyed by the path up to `{id}`. A route with an `{id}` that is
 * not listed here fails the test, so a new resource is covered without anyone remembering to.
 */
const resources: Record<string, Resource> = {
  '/incidents/{id}': {
    create: (t) =>
      postJson('/incidents', t.writer, {
        severity: 'high',
        category: 'confidentiality',
        detectedAt: new Date(Date.now() - 3600_000).toISOString(),
      }).then(created),
    read: (t, id) => readJson(t, `/incidents/${id}`),
  },
  '/webhooks/{id}': {
    create: (
      t, // Subscribed to an event no test here causes, so that its delivery log stays still.
    ) =>
      postJson('/webhooks', t.writer, {
        url: 'http://127.0.0.1:9/isolation',
        events: ['incident.deadline_72h'],
      }).then(created),
    read: async (t, id) => {
      const list = await bodyOf<{ data: { id: string }[] }>(await call('/webhooks', { token: t.reader }));
      return {
        endpoint: list.data.find((e) => e.id === id),
        deliveries: await readJson(t, `/webhooks/${id}/deliveries`),
      };
    },
  },
  '/contributions/{id}': {
    create: (t) =>
      postJson('/contributions', t.writer, { amount: { value: '12.50', currency: 'EUR' } }).then(created),
    read: (t, id) => readJson(t, `/contributions/${id}`),
  },
  '/timebank/payouts/{id}': {
    create: async (t) =>
      postJson('/timebank/payouts', t.writer, { memberId: await newMember(t), hours: 1.5 }).then(created),
    read: (t, id) => readJson(t, `/timebank/payouts/${id}`),
  },
  '/sanctuary/files/{id}': {
    create: (t) =>
      postJson('/sanctuary/files', t.writer, {
        name: 'isolation.pdf',
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      }).then(created),
    read: (t, id) => readJson(t, `/sanctuary/files/${id}`),
  },
};

const idRoutes = routes.filter((r) => r.access !== 'public' && r.path.includes('{id}'));

/**
 * A body the owner's call would be accepted with, for a route that refuses an empty one: the
 * stranger's call must fail for being a stranger's, not for its body.
 */
const VALID_BODIES: Partial<Record<RouteKey, unknown>> = {
  'PATCH /incidents/{id}': { measuresTaken: 'Passwords reset.' },
  'POST /incidents/{id}/authority-updates': { summary: 'Follow-up.' },
  'POST /incidents/{id}/data-subject-communication': { decision: 'communicated' },
};
const resourceOf = (path: string) => path.slice(0, path.indexOf('{id}') + '{id}'.length);

beforeAll(async () => {
  [owner, stranger] = await Promise.all([unthrottledOrganisation(), unthrottledOrganisation()]);
});

describe('organisations are isolated', () => {
  it('names a resource for every route with an {id}', () => {
    expect(idRoutes.length).toBeGreaterThan(0);
    for (const route of idRoutes)
      expect(Object.keys(resources), route.path).toContain(resourceOf(route.path));
  });

  it("answers 404 to every call on another organisation's resource, and the call changes nothing", async () => {
    const ids = new Map<string, string>();
    for (const [path, resource] of Object.entries(resources)) ids.set(path, await resource.create(owner));
    const before = new Map<string, unknown>();
    for (const [path, resource] of Object.entries(resources))
      before.set(path, await resource.read(owner, ids.get(path) as string));

    for (const route of idRoutes) {
      const path = route.path.replace('{id}', ids.get(resourceOf(route.path)) as string);
      const body = VALID_BODIES[routeKey(route)] ?? {};
      const response =
        route.method === 'POST'
          ? await postJson(path, stranger.writer, body)
          : await call(path, {
              method: route.method,
              token: route.access === 'write' ? stranger.writer : stranger.reader,
              ...(route.method === 'PATCH'
                ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
                : {}),
            });
      expect(`${route.method} ${route.path} → ${response.status}`).toBe(
        `${route.method} ${route.path} → 404`,
      );
      await problemOf(response, 404, 'not_found');
    }

    for (const [path, resource] of Object.entries(resources)) {
      expect(await resource.read(owner, ids.get(path) as string), path).toEqual(before.get(path));
    }
  });

  it("lists only the caller's own incidents and webhook endpoints", async () => {
    const incident = await resources['/incidents/{id}']?.create(owner);
    const endpoint = await resources['/webhooks/{id}']?.create(owner);
    const incidents = await bodyOf<{ data: { id: string }[] }>(
      await call('/incidents?limit=100', { token: stranger.reader }),
    );
    const endpoints = await bodyOf<{ data: { id: string }[] }>(
      await call('/webhooks', { token: stranger.reader }),
    );
    expect(incidents.data.map((i) => i.id)).not.toContain(incident);
    expect(endpoints.data.map((e) => e.id)).not.toContain(endpoint);
    // The owner does see them, so the lists above were not empty for another reason.
    const own = await bodyOf<{ data: { id: string }[] }>(await call('/webhooks', { token: owner.reader }));
    expect(own.data.map((e) => e.id)).toContain(endpoint);
  });

  it("treats another organisation's member like an unknown one: 404, nothing recorded", async () => {
    const foreignMember = await newMember(owner);
    const unknownMember = randomUUID();
    for (const memberId of [foreignMember, unknownMember]) {
      await problemOf(
        await postJson('/contributions', stranger.writer, {
          amount: { value: '1', currency: 'EUR' },
          memberId,
        }),
        404,
        'not_found',
      );
      await problemOf(
        await postJson('/timebank/payouts', stranger.writer, { memberId, hours: 1 }),
        404,
        'not_found',
      );
    }
  });

  it('keeps Idempotency-Keys apart: the same key in two organisations makes two resources', async () => {
    const key = randomUUID();
    const detectedAt = new Date(Date.now() - 60_000).toISOString();
    const declare = (tenant: Tenant, severity: string) =>
      postJson(
        '/incidents',
        tenant.writer,
        { severity, category: 'availability', detectedAt },
        { 'Idempotency-Key': key },
      );
    const mine = await declare(owner, 'low');
    const theirs = await declare(stranger, 'critical');
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    const [a, b] = [
      await bodyOf<{ id: string; severity: string }>(mine),
      await bodyOf<{ id: string; severity: string }>(theirs),
    ];
    expect(a.id).not.toBe(b.id);
    expect([a.severity, b.severity]).toEqual(['low', 'critical']);
    // Each organisation can read its own, and only its own.
    expect((await call(`/incidents/${b.id}`, { token: stranger.reader })).status).toBe(200);
    await problemOf(await call(`/incidents/${a.id}`, { token: stranger.reader }), 404, 'not_found');
    // A replay in the owner's organisation still answers with the owner's incident.
    const replay = await declare(owner, 'low');
    expect((await bodyOf<{ id: string }>(replay)).id).toBe(a.id);
  });

  it("keeps a token's Idempotency-Keys its own: another token never gets its stored answer or secret", async () => {
    const key = randomUUID();
    const sibling = (await newToken(owner.organisationId, 'read,write')).token;
    const register = (token: string) =>
      postJson(
        '/webhooks',
        token,
        { url: 'http://127.0.0.1:9/idempotency', events: ['incident.deadline_72h'] },
        { 'Idempotency-Key': key },
      );
    const first = await register(owner.writer);
    const other = await register(sibling);
    expect([first.status, other.status]).toEqual([201, 201]);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    const [a, b] = [
      await bodyOf<{ id: string; secret: string }>(first),
      await bodyOf<{ id: string; secret: string }>(other),
    ];
    expect(b.id).not.toBe(a.id);
    expect(b.secret).not.toBe(a.secret);
    // The first token's retry is still answered with its own first response.
    const retry = await register(owner.writer);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await bodyOf<{ id: string; secret: string }>(retry)).toEqual(a);
  });
});
