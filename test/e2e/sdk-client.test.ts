import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, RequestTimeoutError } from '../../sdk/src/index.js';
import { baseUrl, incidentFields, unthrottledOrganisation } from '../support/api.js';
import { forIncident } from '../support/marker.js';
import { rejectionOf, sdkClient } from '../support/sdk.js';
import { waitFor } from '../support/wait.js';
import { answer, type ReceivedWebhook, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/** The SDK's typed client over real HTTP against the e2e stack, for every endpoint family. */
let writer: ReturnType<typeof sdkClient>;
let reader: ReturnType<typeof sdkClient>;
let receiver: Receiver;
let organisationId: string;

beforeAll(async () => {
  const org = await unthrottledOrganisation();
  organisationId = org.organisationId;
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

describe('the SDK client on the breach record', () => {
  it('amends with the ETag as If-Match, follows up a notification and records the Art. 34 decision', async () => {
    const { data: declared } = await writer.client.POST('/incidents', { body: incidentFields() as never });
    const path = { params: { path: { id: declared.id } } };
    const { response: read } = await reader.client.GET('/incidents/{id}', path);
    const etag = read.headers.get('etag') ?? '';
    const { data: assessed, response } = await writer.client.PATCH('/incidents/{id}', {
      ...path,
      headers: { 'If-Match': etag },
      body: { risk: { level: 'high', rationale: 'Health data.' }, measuresTaken: 'Remote wipe.' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).not.toBe(etag);
    expect(assessed).toMatchObject({
      risk: { level: 'high', rationale: 'Health data.' },
      measuresTaken: 'Remote wipe.',
      obligations: { dataSubjectCommunication: 'required' },
    });
    expect(assessed.history.at(-1)).toMatchObject({ fields: ['measuresTaken', 'risk'] });

    // A follow-up needs the initial notification first.
    const early = await rejectionOf(
      writer.client.POST('/incidents/{id}/authority-updates', { ...path, body: { summary: 'Too early.' } }),
    );
    expect(early).toMatchObject({ status: 409, code: 'not_notified' });
    await writer.client.POST('/incidents/{id}/notify', { ...path, body: { summary: 'Initial.' } });
    const { data: followed } = await writer.client.POST('/incidents/{id}/authority-updates', {
      ...path,
      body: { reference: 'DPA-7', summary: 'No copies made.' },
    });
    expect(followed.authorityNotifications?.map((n) => n.phase)).toEqual(['initial', 'follow_up']);
    expect(followed.authorityNotifications?.at(-1)).toMatchObject({
      reference: 'DPA-7',
      summary: 'No copies made.',
    });

    const { data: informed } = await writer.client.POST('/incidents/{id}/data-subject-communication', {
      ...path,
      body: { decision: 'communicated', channel: 'email' },
    });
    expect(informed).toMatchObject({
      dataSubjectCommunication: { decision: 'communicated', channel: 'email' },
      obligations: { dataSubjectCommunication: 'done' },
    });
  });

  it('reads the report as JSON by default, and as an HTML page with parseAs text and Accept', async () => {
    const { data: declared } = await writer.client.POST('/incidents', { body: incidentFields() as never });
    const path = { params: { path: { id: declared.id } } };
    const { data: report } = await reader.client.GET('/incidents/{id}/report', path);
    expect(report).toMatchObject({ incidentId: declared.id, organisationId });
    if (typeof report === 'string') throw new Error('the report came as text');
    expect(report.sections.map((s) => s.key)).toEqual([
      'nature',
      'contact',
      'consequences',
      'measures',
      'notification',
      'data_subject_communication',
    ]);
    const { data: page, response } = await reader.client.GET('/incidents/{id}/report', {
      ...path,
      headers: { Accept: 'text/html' },
      parseAs: 'text',
    });
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('data-section="nature"');
  });

  it('pages through the breach register with for await, and reads it whole as CSV', async () => {
    const own = await unthrottledOrganisation();
    const ownWriter = sdkClient(own.writer);
    const ownReader = sdkClient(own.reader);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await ownWriter.client.POST('/incidents', { body: incidentFields() as never })).data.id);
    }
    const newestFirst = [...ids].reverse();
    const listed: string[] = [];
    for await (const row of ownReader.client.paginate('/breach-register', {
      params: { query: { limit: 2 } },
    })) {
      listed.push(row.id);
    }
    expect(listed).toEqual(newestFirst);
    expect(ownReader.sent.map((s) => s.status)).toEqual([200, 200]);
    expect(ownReader.sent.every((s) => s.path.includes('limit=2'))).toBe(true);
    expect(ownReader.sent[1]?.path).toMatch(/[?&]cursor=/);

    for (const init of [
      { params: { query: { format: 'csv' as const } }, parseAs: 'text' as const },
      { headers: { Accept: 'text/csv' }, parseAs: 'text' as const },
    ]) {
      const { data: csv, response } = await ownReader.client.GET('/breach-register', init);
      expect(response.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
      const lines = String(csv).split('\r\n');
      expect(lines[0]).toMatch(/^id,status,severity,category,/);
      expect(lines.slice(1, -1).map((line) => line.split(',')[0])).toEqual(newestFirst);
      expect(lines.at(-1)).toBe('');
    }
  });
});

describe('the SDK client on managed webhook endpoints', () => {
  it('reads and changes an endpoint, sends a test, redelivers it, and recovers what was skipped', async () => {
    const url = receiver.route('/managed', answer(200));
    const atManaged = (w: ReceivedWebhook) => w.path === '/managed';
    const { data: created } = await writer.client.POST('/webhooks', {
      body: { url, events: ['incident.declared'] },
    });
    const path = { params: { path: { id: created.id } } };

    const { data: shown } = await reader.client.GET('/webhooks/{id}', path);
    expect(shown).toMatchObject({ id: created.id, url, status: 'enabled', events: ['incident.declared'] });
    expect(shown).not.toHaveProperty('secret');
    const { data: changed } = await writer.client.PATCH('/webhooks/{id}', {
      ...path,
      body: { description: 'Set up by the SDK', events: ['incident.declared', 'incident.closed'] },
    });
    expect(changed).toMatchObject({
      description: 'Set up by the SDK',
      events: ['incident.declared', 'incident.closed'],
    });

    const { data: test, response: accepted } = await writer.client.POST('/webhooks/{id}/test', path);
    expect(accepted.status).toBe(202);
    expect(test.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    const sameDelivery = (w: ReceivedWebhook) =>
      atManaged(w) && w.headers['x-service-delivery'] === test.deliveryId;
    const [first] = await receiver.waitFor(1, sameDelivery);
    expect(first?.body).toEqual({
      event: 'webhook.test',
      organisationId,
      webhook: { id: created.id },
      attempt: 1,
    });

    const { response: redelivered } = await writer.client.POST(
      '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      { params: { path: { id: created.id, deliveryId: test.deliveryId } } },
    );
    expect(redelivered.status).toBe(202);
    const both = await receiver.waitFor(2, sameDelivery);
    expect(both.map((w) => w.body.attempt)).toEqual([1, 2]);

    // Disabled: an event is logged as skipped; enabled again, recover sends it.
    await writer.client.PATCH('/webhooks/{id}', { ...path, body: { enabled: false } });
    const since = new Date(Date.now() - 1000).toISOString();
    const { data: missed } = await writer.client.POST('/incidents', { body: incidentFields() as never });
    await waitFor('the event logged as skipped', async () => {
      for await (const attempt of reader.client.paginate('/webhooks/{id}/deliveries', path)) {
        if (attempt.event === 'incident.declared' && attempt.outcome === 'skipped') return true;
      }
      return undefined;
    });
    expect(receiver.received.filter((w) => atManaged(w) && forIncident(missed.id)(w))).toEqual([]);
    await writer.client.PATCH('/webhooks/{id}', { ...path, body: { enabled: true } });
    const { data: recovered, response: recovering } = await writer.client.POST('/webhooks/{id}/recover', {
      ...path,
      body: { since },
    });
    expect(recovering.status).toBe(202);
    expect(recovered).toEqual({ count: 1 });
    const [sent] = await receiver.waitFor(1, (w) => atManaged(w) && forIncident(missed.id)(w));
    expect(sent?.body).toMatchObject({ event: 'incident.declared', attempt: 1 });
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

  it('412 precondition_failed for a PATCH whose If-Match is stale, and nothing written', async () => {
    const { data: declared } = await writer.client.POST('/incidents', { body: incidentFields() as never });
    const path = { params: { path: { id: declared.id } } };
    const etag = (await reader.client.GET('/incidents/{id}', path)).response.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const { data: changed } = await writer.client.PATCH('/incidents/{id}', {
      ...path,
      headers: { 'If-Match': etag },
      body: { measuresTaken: 'Passwords reset.' },
    });
    const error = await rejectionOf(
      writer.client.PATCH('/incidents/{id}', {
        ...path,
        headers: { 'If-Match': etag },
        body: { measuresTaken: 'Overwritten?' },
      }),
    );
    expect(error).toMatchObject({
      status: 412,
      code: 'precondition_failed',
      title: 'Precondition Failed',
      method: 'PATCH',
      errors: [],
    });
    expect(error.detail).toMatch(/ETag/);
    expect((await reader.client.GET('/incidents/{id}', path)).data).toEqual(changed);
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
