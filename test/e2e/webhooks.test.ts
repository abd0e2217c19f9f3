import { verify as verifyGitHubStyle } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, call, cli, declareIncident, postJson, unthrottledOrganisation } from '../support/api.js';
import { forIncident, receivedBeforeMarker } from '../support/marker.js';
import { waitFor } from '../support/wait.js';
import { answer, firstThen, type Receiver, startReceiver } from '../support/webhook-receiver.js';

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  secret?: string;
  disabledAt: string | null;
}
interface Attempt {
  deliveryId: string;
  attempt: number;
  outcome: string;
  statusCode?: number;
  errorClass?: string;
  latencyMs: number;
}

const receivers: Receiver[] = [];
let organisationId: string;
let writer: string;
let reader: string;

async function receiver(...args: Parameters<typeof startReceiver>) {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

async function register(url: string, events?: string[]): Promise<Endpoint> {
  const response = await postJson('/webhooks', writer, { url, ...(events ? { events } : {}) });
  expect(response.status).toBe(201);
  return bodyOf<Endpoint>(response);
}

async function declare(): Promise<string> {
  const response = await declareIncident(writer);
  expect(response.status).toBe(201);
  return (await bodyOf<{ id: string }>(response)).id;
}

async function deliveries(endpointId: string): Promise<Attempt[]> {
  return (
    await bodyOf<{ data: Attempt[] }>(await call(`/webhooks/${endpointId}/deliveries`, { token: reader }))
  ).data;
}

beforeAll(async () => {
  ({ organisationId, writer, reader } = await unthrottledOrganisation());
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

describe('webhook endpoints', () => {
  it('show the signing secret once, at registration, and never again', async () => {
    const hook = await receiver();
    const endpoint = await register(hook.url);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint.events).toHaveLength(9);
    const listed = await bodyOf<{ data: Endpoint[] }>(await call('/webhooks?limit=100', { token: reader }));
    const again = listed.data.find((e) => e.id === endpoint.id);
    expect(again).toMatchObject({ id: endpoint.id, url: hook.url });
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret);
  });

  it('are listed a page at a time, every one once, with nextCursor null on the last page', async () => {
    const own = await unthrottledOrganisation();
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await postJson('/webhooks', own.writer, {
        url: `http://127.0.0.1:9/paging-${i}`,
        events: ['incident.deadline_72h'],
      });
      created.push((await bodyOf<Endpoint>(response)).id);
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page: { data: Endpoint[]; nextCursor: string | null } = await bodyOf(
        await call(`/webhooks?limit=2${query}`, { token: own.reader }),
      );
      seen.push(...page.data.map((e) => e.id));
      sizes.push(page.data.length);
      cursor = page.nextCursor;
    } while (cursor && sizes.length < 10);
    expect(sizes.slice(0, 2)).toEqual([2, 2]);
    expect(seen.sort()).toEqual([...created].sort());
    const whole = await bodyOf<{ nextCursor: unknown }>(await call('/webhooks', { token: own.reader }));
    expect(whole.nextCursor).toBeNull();
  });

  it('are refused with 400 for a bad URL or an unknown event, and 403 for a read token', async () => {
    expect((await postJson('/webhooks', writer, { url: 'ftp://example.org/x' })).status).toBe(400);
    expect(
      (await postJson('/webhooks', writer, { url: 'http://127.0.0.1:9/x', events: ['incident.exploded'] }))
        .status,
    ).toBe(400);
    expect((await postJson('/webhooks', reader, { url: 'http://127.0.0.1:9/x' })).status).toBe(403);
  });

  it('are removed with 204, then 404', async () => {
    const endpoint = await register('http://127.0.0.1:9/gone');
    expect((await call(`/webhooks/${endpoint.id}`, { token: writer, method: 'DELETE' })).status).toBe(204);
    expect((await call(`/webhooks/${endpoint.id}`, { token: writer, method: 'DELETE' })).status).toBe(404);
    expect((await call(`/webhooks/${endpoint.id}/deliveries`, { token: reader })).status).toBe(404);
  });
});

describe('delivery', () => {
  it('POSTs the spec payload once, signed in both schemes over the exact bytes, and logs it', async () => {
    const hook = await receiver();
    const endpoint = await register(hook.url);
    const incidentId = await declare();
    const [webhook] = await hook.waitFor(1, forIncident(incidentId));
    if (!webhook || !endpoint.secret) throw new Error('no webhook');

    expect(webhook.body).toEqual({
      event: 'incident.declared',
      organisationId,
      incident: expect.objectContaining({ id: incidentId, severity: 'high', category: 'confidentiality' }),
      attempt: 1,
    });
    const incident = webhook.body.incident as Record<string, unknown>;
    expect(incident.detectedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(webhook.headers['content-type']).toBe('application/json');
    expect(webhook.headers['x-service-event']).toBe('incident.declared');
    expect(webhook.headers['x-service-delivery']).toBe(webhook.headers['webhook-id']);
    expect(webhook.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(
      await verifyGitHubStyle(
        endpoint.secret,
        webhook.rawBody,
        String(webhook.headers['x-service-signature']),
      ),
    ).toBe(true);
    expect(new Webhook(endpoint.secret).verify(webhook.rawBody, webhook.headers)).toEqual(webhook.body);

    const log = await waitFor('the delivery log', async () => {
      const attempts = await deliveries(endpoint.id);
      return attempts.length > 0 ? attempts : undefined;
    });
    expect(log[0]).toMatchObject({
      deliveryId: webhook.headers['webhook-id'],
      attempt: 1,
      outcome: 'succeeded',
      statusCode: 200,
    });
    const later = await declare();
    expect(await receivedBeforeMarker(hook, forIncident(incidentId), forIncident(later))).toHaveLength(1);
  });

  it('follows every state change and respects each endpoint’s event filter', async () => {
    const all = await receiver();
    const closedOnly = await receiver();
    await register(all.url);
    await register(closedOnly.url, ['incident.closed']);
    const id = await declare();
    await postJson(`/incidents/${id}/contain`, writer, {});
    await postJson(`/incidents/${id}/notify`, writer, { authorityReference: 'DPA-9' });
    await postJson(`/incidents/${id}/close`, writer, {});
    const events = (await all.waitFor(4, forIncident(id))).map((w) => w.body.event).sort();
    expect(events).toEqual([
      'incident.closed',
      'incident.contained',
      'incident.declared',
      'incident.notified',
    ]);
    const closed = await closedOnly.waitFor(1, forIncident(id));
    expect(closed.map((w) => w.body.event)).toEqual(['incident.closed']);
    expect(closed[0]?.body.incident).toMatchObject({ status: 'closed' });
  });

  it('retries a failing receiver with the same delivery id and attempt 1, 2, 3', async () => {
    const hook = await receiver(firstThen(2, answer(503)));
    const endpoint = await register(hook.url);
    const id = await declare();
    const attempts = await hook.waitFor(3, forIncident(id), 30_000);
    expect(attempts.map((w) => w.body.attempt)).toEqual([1, 2, 3]);
    expect(new Set(attempts.map((w) => w.headers['x-service-delivery'])).size).toBe(1);
    const log = await waitFor('the successful attempt in the log', async () => {
      const entries = await deliveries(endpoint.id);
      return entries.some((e) => e.outcome === 'succeeded') ? entries : undefined;
    });
    expect(log.map((e) => [e.attempt, e.outcome, e.statusCode])).toEqual([
      [3, 'succeeded', 200],
      [2, 'retry_scheduled', 503],
      [1, 'retry_scheduled', 503],
    ]);
  });

  it('never lets a failing endpoint hold up or repeat another endpoint’s delivery', async () => {
    const failing = await receiver(answer(500));
    const healthy = await receiver();
    await register(failing.url);
    await register(healthy.url);
    const id = await declare();
    await failing.waitFor(2, forIncident(id), 30_000);
    expect(healthy.received.filter(forIncident(id))).toHaveLength(1);
    expect(healthy.received.find(forIncident(id))?.body.attempt).toBe(1);
  });

  it('disables an endpoint that answers 410 Gone', async () => {
    const hook = await receiver(answer(410));
    const endpoint = await register(hook.url);
    await declare();
    const disabled = await waitFor('the endpoint to be disabled', async () => {
      const listed = await bodyOf<{ data: Endpoint[] }>(await call('/webhooks?limit=100', { token: reader }));
      return listed.data.find((e) => e.id === endpoint.id && e.disabledAt !== null);
    });
    expect(disabled.disabledAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Another endpoint receives a later incident's webhook: by then the disabled one had its chance.
    const markers = await receiver();
    await register(markers.url, ['incident.declared']);
    await declare();
    const later = await declare();
    expect(
      await receivedBeforeMarker(hook, () => true, forIncident(later), { markerAt: markers }),
    ).toHaveLength(1);
  });
});

describe('the dead-letter queue', () => {
  it('takes a delivery after six failed attempts; mis dlq redrive delivers it with the same delivery id', async () => {
    const hook = await receiver(answer(500));
    const endpoint = await register(hook.url);
    const id = await declare();
    const failures = await hook.waitFor(6, forIncident(id), 40_000);
    expect(failures.map((w) => w.body.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    const deliveryId = String(failures[0]?.headers['x-service-delivery']);

    const dead = await waitFor('the delivery in the dead-letter queue', async () => {
      const letters = await cli<
        { deliveryId: string; attempts: number; lastError: string; endpointId: string }[]
      >('dlq', 'list');
      return letters.find((l) => l.deliveryId === deliveryId);
    });
    expect(dead).toMatchObject({ endpointId: endpoint.id, attempts: 6 });
    expect(dead.lastError).toMatch(/500/);
    const log = await deliveries(endpoint.id);
    expect(log[0]).toMatchObject({ deliveryId, attempt: 6, outcome: 'failed' });

    hook.behave(answer(200));
    const redriven = await cli<{ deliveryId: string }[]>('dlq', 'redrive');
    expect(redriven.map((r) => r.deliveryId)).toContain(deliveryId);
    const [delivered] = await hook.waitFor(
      1,
      (w) =>
        forIncident(id)(w) && w.headers['x-service-delivery'] === deliveryId && hook.received.indexOf(w) >= 6,
    );
    expect(delivered?.headers['webhook-id']).toBe(deliveryId);
    const remaining = await cli<{ deliveryId: string }[]>('dlq', 'list');
    expect(remaining.map((l) => l.deliveryId)).not.toContain(deliveryId);
  });
});
