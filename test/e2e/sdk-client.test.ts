import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, RequestTimeoutError } from '../../sdk/src/index.js';
import { baseUrl, incidentFields, unthrottledOrganisation } from '../support/api.js';
import { rejectionOf, sdkClient } from '../support/sdk.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

/** The SDK's typed client over real HTTP against the e2e stack, for every endpoint family. */
let writer: ReturnType<typeof sdkClient>;
let reader: ReturnType<typeof sdkClient>;
let receiver: Receiver;

beforeAll(async () => {
  const org = await unthrottledOrganisation();
  writer = sdkClient(org.writer);
  reader = sdkClient(org.reader);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe('the SDK client, endpoint by endpoint', () => {
  it('pings, and reads the OpenAPI document as JSON and the console as text', async () => {
    const { data: ping, response } = await reader.client.GET('/ping');
    expect(ping.ok).toBe(true);
    expect(response.headers.get('ratelimit-limit')).toBe('10000');
    const { data: document } = await reader.client.GET('/openapi.json');
    expect(document).toMatchObject({ openapi: '3.1.0' });
    const { data: page } = await reader.client.GET('/docs', { parseAs: 'text' });
    expect(page).toMatch(/<html/i);
  });

  it('creates members and reads their statistics, a 304 answering its ETag without throwing', async () => {
    const { data: member, response } = await writer.client.POST('/members', {
      body: { membershipType: 'regular' },
    });
    expect(response.status).toBe(201);
    expect(member.id).toMatch(/^[0-9a-f-]{36}$/);
    const { data: statistics, response: first } = await reader.client.GET('/members');
    // Small counts are withheld (anonymisation): either form is the typed answer.
    expect(statistics.total).toHaveProperty('withheld');
    const etag = first.headers.get('etag') ?? '';
    const { response: unchanged } = await reader.client.GET('/members', {
      headers: { 'If-None-Match': etag },
    });
    expect(unchanged.status).toBe(304);
  });

  it('creates events and pages through them with for await, passing nextCursor back as cursor', async () => {
    const titles = ['First', 'Second', 'Third'];
    for (const [i, title] of titles.entries()) {
      await writer.client.POST('/events', { body: { title, startsAt: inDays(i + 1) } });
    }
    reader.sent.length = 0;
    const seen: string[] = [];
    for await (const event of reader.client.paginate('/events', { params: { query: { limit: 1 } } })) {
      seen.push(event.title);
    }
    expect(seen).toEqual(titles);
    // One request a page, each after the first carrying the previous page's cursor, and the limit on each.
    expect(reader.sent.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(reader.sent.every((s) => s.path.includes('limit=1'))).toBe(true);
    expect(reader.sent.slice(1).every((s) => /[?&]cursor=/.test(s.path))).toBe(true);
  });

  it('publishes an impact report, 404 no_report before', async () => {
    const none = await rejectionOf(reader.client.GET('/impact'));
    expect(none).toMatchObject({ status: 404, code: 'no_report' });
    const body = {
      title: 'Impact 2026',
      periodStart: '2026-01-01',
      periodEnd: '2026-12-31',
      summary: 'In numbers.',
      metrics: [{ key: 'volunteer_hours', label: 'Volunteer hours', value: 1280, unit: 'h' }],
    };
    const { data: created } = await writer.client.POST('/impact', { body });
    const { data: latest } = await reader.client.GET('/impact');
    expect(latest).toEqual(created);
  });

  it('declares incidents, moves one through its statuses, and pages through them', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { data } = await writer.client.POST('/incidents', {
        body: incidentFields({ severity: 'low' }) as never,
      });
      ids.push(data.id);
    }
    const id = ids[0] ?? '';
    const path = { params: { path: { id } } };
    expect(
      (await writer.client.POST('/incidents/{id}/contain', { ...path, body: { note: 'cut off' } })).data
        .status,
    ).toBe('contained');
    expect((await writer.client.POST('/incidents/{id}/notify', { ...path, body: {} })).data.status).toBe(
      'notified',
    );
    expect((await writer.client.POST('/incidents/{id}/close', path)).data.status).toBe('closed');
    expect((await reader.client.GET('/incidents/{id}', path)).data.status).toBe('closed');
    const listed: string[] = [];
    for await (const incident of reader.client.paginate('/incidents', { params: { query: { limit: 2 } } })) {
      listed.push(incident.id);
    }
    expect(listed.sort()).toEqual([...ids].sort());
  });

  it('records contributions, timebank payouts and sanctuary files, and reads each back', async () => {
    const { data: member } = await writer.client.POST('/members', { body: { membershipType: 'regular' } });
    const { data: contribution } = await writer.client.POST('/contributions', {
      body: { amount: { value: '12.50', currency: 'EUR' }, memberId: member.id },
    });
    const { data: payout } = await writer.client.POST('/timebank/payouts', {
      body: { memberId: member.id, hours: 1.5 },
    });
    const { data: file } = await writer.client.POST('/sanctuary/files', {
      body: { name: 'statement.pdf', expiresAt: inDays(30) },
    });
    expect(
      (await reader.client.GET('/contributions/{id}', { params: { path: { id: contribution.id } } })).data,
    ).toEqual(contribution);
    expect(
      (await reader.client.GET('/timebank/payouts/{id}', { params: { path: { id: payout.id } } })).data,
    ).toEqual(payout);
    expect(
      (await reader.client.GET('/sanctuary/files/{id}', { params: { path: { id: file.id } } })).data,
    ).toEqual(file);
  });

  it('registers a webhook, pages through endpoints and their deliveries, and deletes it (204)', async () => {
    const { data: endpoint } = await writer.client.POST('/webhooks', {
      body: { url: receiver.url, events: ['member.created'] },
    });
    expect(endpoint.secret).toMatch(/^whsec_/);
    await writer.client.POST('/members', { body: { membershipType: 'regular' } });
    await receiver.waitFor(1, (w) => w.body.event === 'member.created');
    const endpoints: string[] = [];
    for await (const listed of reader.client.paginate('/webhooks', { params: { query: { limit: 1 } } })) {
      endpoints.push(listed.id);
    }
    expect(endpoints).toContain(endpoint.id);
    const deliveries = [];
    for await (const attempt of reader.client.paginate('/webhooks/{id}/deliveries', {
      params: { path: { id: endpoint.id } },
    })) {
      deliveries.push(attempt);
    }
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    expect(deliveries[0]).toMatchObject({ event: 'member.created' });
    const { response } = await writer.client.DELETE('/webhooks/{id}', {
      params: { path: { id: endpoint.id } },
    });
    expect(response.status).toBe(204);
  });
});

describe('idempotency keys', () => {
  it('puts a fresh Idempotency-Key on every POST, and none on a GET', async () => {
    const { client, sent } = sdkClient((await unthrottledOrganisation()).writer);
    await client.POST('/members', { body: { membershipType: 'regular' } });
    await client.POST('/members', { body: { membershipType: 'regular' } });
    await client.GET('/members');
    const [first, second, read] = sent;
    expect(first?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.idempotencyKey).not.toBe(first?.idempotencyKey);
    expect(read?.idempotencyKey).toBeNull();
  });

  it("keeps the caller's key, so that repeating a POST returns the first result instead of a second write", async () => {
    const key = randomUUID();
    const headers = { 'Idempotency-Key': key };
    const body = incidentFields() as never;
    const first = await writer.client.POST('/incidents', { body, headers });
    const again = await writer.client.POST('/incidents', { body, headers });
    expect(writer.sent.at(-1)?.idempotencyKey).toBe(key);
    expect(again.data.id).toBe(first.data.id);
  });
});

describe('errors, thrown as one ApiError with the problem body', () => {
  it('400 validation_failed names the offending fields', async () => {
    const error = await rejectionOf(
      writer.client.POST('/incidents', { body: { severity: 'huge', category: 'integrity' } as never }),
    );
    expect(error).toMatchObject({ status: 400, code: 'validation_failed', method: 'POST' });
    expect(error.errors.map((e) => e.field).sort()).toEqual(['detectedAt', 'severity']);
    expect(error.detail).toBeTruthy();
  });

  it('401 unauthorized for a token the service does not know, without the token in the message', async () => {
    const token = `svc_nobody_${'x'.repeat(40)}`;
    const error = await rejectionOf(createClient({ baseUrl: baseUrl(), token }).GET('/ping'));
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(error.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(`${error.message} ${error.stack}`).not.toContain(token);
  });

  it('403 insufficient_scope for a write with a read token', async () => {
    const error = await rejectionOf(reader.client.POST('/members', { body: { membershipType: 'regular' } }));
    expect(error).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('404 not_found for an unknown incident', async () => {
    const error = await rejectionOf(
      reader.client.GET('/incidents/{id}', { params: { path: { id: randomUUID() } } }),
    );
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(error.url).toMatch(/\/incidents\/[0-9a-f-]{36}$/);
  });

  it('409 invalid_transition for a move the status does not allow, and idempotency_conflict for a reused key', async () => {
    const { data } = await writer.client.POST('/incidents', { body: incidentFields() as never });
    const path = { params: { path: { id: data.id } } };
    await writer.client.POST('/incidents/{id}/close', path);
    expect(await rejectionOf(writer.client.POST('/incidents/{id}/contain', path))).toMatchObject({
      status: 409,
      code: 'invalid_transition',
    });
    const headers = { 'Idempotency-Key': randomUUID() };
    await writer.client.POST('/members', { body: { membershipType: 'regular' }, headers });
    expect(
      await rejectionOf(
        writer.client.POST('/members', { body: { membershipType: 'honorary' } as never, headers }),
      ),
    ).toMatchObject({ status: 409, code: 'idempotency_conflict' });
  });

  it('415 for a body sent with another content type', async () => {
    const error = await rejectionOf(
      writer.client.POST('/members', {
        body: { membershipType: 'regular' },
        headers: { 'Content-Type': 'text/plain' },
      }),
    );
    expect(error.status).toBe(415);
    expect(error.code).toBe('unsupported_media_type');
  });

  it('412 and any other status from a problem body, from a server answering one (no endpoint answers 412 yet)', async () => {
    // PATCH /incidents/{id} with a stale If-Match (issue 12) will answer 412 from the stack itself.
    const server = createServer((_request, response) => {
      response.writeHead(412, { 'content-type': 'application/problem+json' });
      response.end(
        JSON.stringify({
          type: 'about:blank',
          title: 'Precondition failed',
          status: 412,
          detail: 'stale',
          code: 'precondition_failed',
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const client = createClient({ baseUrl: `http://127.0.0.1:${port}/api/public/v1`, token: 'svc_a_b' });
      const error = await rejectionOf(client.GET('/ping'));
      expect(error).toMatchObject({
        status: 412,
        code: 'precondition_failed',
        title: 'Precondition failed',
        detail: 'stale',
        errors: [],
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('throws a RequestTimeoutError when an attempt has no answer within timeoutMs', async () => {
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, token: 'svc_a_b', timeoutMs: 300 });
      const error = await rejectionOf(client.GET('/ping'), RequestTimeoutError);
      expect(error).toMatchObject({ method: 'GET', timeoutMs: 300 });
      expect(error).not.toBeInstanceOf(ApiError);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
