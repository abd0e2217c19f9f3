import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyOf,
  call,
  cli,
  declareIncident,
  postJson,
  problemOf,
  unthrottledOrganisation,
} from '../support/api.js';
import { forIncident } from '../support/marker.js';
import { waitFor } from '../support/wait.js';
import { answer, type ReceivedWebhook, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * Webhook endpoints their owners can run (INTERFACE.md, "Webhook endpoints, managed"), through the
 * running local stack: read and change, disable without losing events, test sends, rotation with
 * overlap, redeliver, recover, and the one `attempt` rule.
 */
interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  secret?: string;
  previousSecretExpiresAt: string | null;
}
interface Attempt {
  deliveryId: string;
  event: string;
  attempt: number;
  outcome: string;
  statusCode?: number;
}

const receivers: Receiver[] = [];
let writer: string;
let reader: string;
let organisationId: string;

async function receiver(behaviour = answer(200)) {
  const started = await startReceiver(behaviour);
  receivers.push(started);
  return started;
}

async function register(url: string, events: string[] = ['incident.declared']): Promise<Endpoint> {
  const response = await postJson('/webhooks', writer, { url, events });
  expect(response.status).toBe(201);
  return bodyOf<Endpoint>(response);
}

const patch = (id: string, body: unknown) =>
  call(`/webhooks/${id}`, {
    method: 'PATCH',
    token: writer,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

async function declare(): Promise<string> {
  const response = await declareIncident(writer);
  expect(response.status).toBe(201);
  return (await bodyOf<{ id: string }>(response)).id;
}

async function log(endpointId: string): Promise<Attempt[]> {
  return (
    await bodyOf<{ data: Attempt[] }>(
      await call(`/webhooks/${endpointId}/deliveries?limit=100`, { token: reader }),
    )
  ).data;
}

/** Waits until the endpoint's log holds an entry matching `predicate`; answers the whole log. */
const logged = (endpointId: string, what: string, predicate: (a: Attempt) => boolean) =>
  waitFor(what, async () => {
    const entries = await log(endpointId);
    return entries.some(predicate) ? entries : undefined;
  });

/** GitHub-style: constant-time comparison of `sha256=<hex>` over the raw body. */
function signedWith(secret: string, webhook: ReceivedWebhook, header: string): boolean {
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', secret).update(webhook.rawBody).digest('hex')}`,
  );
  const got = Buffer.from(webhook.headers[header] ?? '');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** The Standard Webhooks library's own verification, as a subscriber would run it. */
function standardVerifies(secret: string, webhook: ReceivedWebhook): boolean {
  try {
    new Webhook(secret).verify(webhook.rawBody, {
      'webhook-id': webhook.headers['webhook-id'] ?? '',
      'webhook-timestamp': webhook.headers['webhook-timestamp'] ?? '',
      'webhook-signature': webhook.headers['webhook-signature'] ?? '',
    });
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  ({ organisationId, writer, reader } = await unthrottledOrganisation());
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

describe('GET and PATCH /webhooks/{id}', () => {
  it('reads one endpoint with its status, never its secret', async () => {
    const hook = await receiver();
    const created = await register(hook.url);
    const response = await call(`/webhooks/${created.id}`, { token: reader });
    expect(response.status).toBe(200);
    const endpoint = await bodyOf<Endpoint>(response);
    expect(endpoint).toMatchObject({
      id: created.id,
      url: hook.url,
      status: 'enabled',
      disabledReason: null,
      previousSecretExpiresAt: null,
    });
    expect(JSON.stringify(endpoint)).not.toContain(created.secret);
  });

  it('changes url, events and description, and refuses what registration refuses', async () => {
    const hook = await receiver();
    const created = await register(hook.url);
    const moved = hook.route('/moved', answer(200));
    const changed = await patch(created.id, {
      url: moved,
      events: ['incident.declared', 'incident.closed'],
      description: 'Case system',
    });
    expect(changed.status).toBe(200);
    expect(await bodyOf<Endpoint>(changed)).toMatchObject({
      url: moved,
      events: ['incident.declared', 'incident.closed'],
      description: 'Case system',
    });
    await problemOf(await patch(created.id, { url: 'ftp://example.org/hooks' }), 400, 'validation_failed');
    await problemOf(await patch(created.id, { events: ['webhook.test'] }), 400, 'validation_failed');
    await problemOf(await patch(created.id, { colour: 'red' }), 400, 'validation_failed');
    // The next event goes to the new URL only.
    const id = await declare();
    await hook.waitFor(1, (w) => w.path === '/moved' && forIncident(id)(w));
    expect(hook.requestsTo('/hooks').filter(forIncident(id))).toEqual([]);
    const removed = await bodyOf<Endpoint>(await patch(created.id, { description: null }));
    expect(removed.description).toBeNull();
  });
});

describe('a disabled endpoint', () => {
  it('is sent nothing, keeps its events as skipped, and a recover after enabling sends them', async () => {
    const hook = await receiver();
    const endpoint = await register(hook.url);
    const disabled = await bodyOf<Endpoint>(await patch(endpoint.id, { enabled: false }));
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'manual' });
    const since = new Date().toISOString();
    const missed = [await declare(), await declare()];
    const skipped = await waitFor('both events logged as skipped', async () => {
      const entries = (await log(endpoint.id)).filter((a) => a.outcome === 'skipped');
      return entries.length >= 2 ? entries : undefined;
    });
    expect(skipped.map((a) => a.attempt)).toEqual([1, 1]);
    expect(hook.received).toEqual([]);

    const enabled = await bodyOf<Endpoint>(await patch(endpoint.id, { enabled: true }));
    expect(enabled).toMatchObject({ status: 'enabled', disabledReason: null });
    const recovered = await postJson(`/webhooks/${endpoint.id}/recover`, writer, { since });
    expect(recovered.status).toBe(202);
    expect(await bodyOf(recovered)).toEqual({ count: 2 });
    // Each as its first attempt: a skip reached no one.
    const arrived = await hook.waitFor(2);
    expect(arrived.map((w) => (w.body.incident as { id: string }).id).sort()).toEqual([...missed].sort());
    expect(arrived.map((w) => w.body.attempt)).toEqual([1, 1]);
    expect(arrived.map((w) => w.headers['x-service-delivery']).sort()).toEqual(
      skipped.map((a) => a.deliveryId).sort(),
    );
    // Nothing left to recover.
    expect(await bodyOf(await postJson(`/webhooks/${endpoint.id}/recover`, writer, { since }))).toEqual({
      count: 0,
    });
  });

  it('refuses a recover from the future or from beyond the log retention', async () => {
    const endpoint = await register((await receiver()).url);
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const longAgo = new Date(Date.now() - 91 * 86_400_000).toISOString();
    for (const since of [inAnHour, longAgo]) {
      await problemOf(
        await postJson(`/webhooks/${endpoint.id}/recover`, writer, { since }),
        400,
        'validation_failed',
      );
    }
  });
});

describe('POST /webhooks/{id}/test', () => {
  it('sends a signed webhook.test to that endpoint alone, and logs it under the delivery id', async () => {
    const hook = await receiver();
    const other = await receiver();
    const endpoint = await register(hook.url);
    // Subscribed to every event.
    expect((await postJson('/webhooks', writer, { url: other.url })).status).toBe(201);
    const response = await postJson(`/webhooks/${endpoint.id}/test`, writer, {});
    expect(response.status).toBe(202);
    const { deliveryId } = await bodyOf<{ deliveryId: string }>(response);
    const [test] = await hook.waitFor(1, (w) => w.body.event === 'webhook.test');
    expect(test?.body).toEqual({
      event: 'webhook.test',
      organisationId,
      webhook: { id: endpoint.id },
      attempt: 1,
    });
    expect(test?.headers['x-service-delivery']).toBe(deliveryId);
    expect(test?.headers['x-service-event']).toBe('webhook.test');
    expect(signedWith(endpoint.secret ?? '', test as ReceivedWebhook, 'x-service-signature')).toBe(true);
    await logged(
      endpoint.id,
      'the test in the log',
      (a) => a.deliveryId === deliveryId && a.outcome === 'succeeded',
    );
    // A marker event to the other endpoint (subscribed to everything): the test never went there.
    const marker = await declare();
    await other.waitFor(1, forIncident(marker));
    expect(other.received.filter((w) => w.body.event === 'webhook.test')).toEqual([]);
  });
});

describe('POST /webhooks/{id}/rotate-secret', () => {
  it('signs with the new and the old secret during the overlap; either verifies', async () => {
    const hook = await receiver();
    const endpoint = await register(hook.url);
    const old = endpoint.secret ?? '';
    const response = await postJson(`/webhooks/${endpoint.id}/rotate-secret`, writer, {});
    expect(response.status).toBe(200);
    const rotated = await bodyOf<{ secret: string; previousSecretExpiresAt: string }>(response);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(old);
    // Default overlap: 24 hours.
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const id = await declare();
    const [webhook] = await hook.waitFor(1, forIncident(id));
    const sent = webhook as ReceivedWebhook;
    expect(signedWith(rotated.secret, sent, 'x-service-signature')).toBe(true);
    expect(signedWith(old, sent, 'x-service-signature-previous')).toBe(true);
    expect(sent.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(standardVerifies(rotated.secret, sent)).toBe(true);
    expect(standardVerifies(old, sent)).toBe(true);
    expect(
      JSON.stringify(await bodyOf(await call(`/webhooks/${endpoint.id}`, { token: reader }))),
    ).not.toContain(rotated.secret);
  });

  it('with overlapHours 0 stops the old secret at once; a second rotation in an overlap stops the oldest', async () => {
    const hook = await receiver();
    const endpoint = await register(hook.url);
    const first = endpoint.secret ?? '';
    const rotate = async (body: unknown) =>
      bodyOf<{ secret: string; previousSecretExpiresAt: string | null }>(
        await postJson(`/webhooks/${endpoint.id}/rotate-secret`, writer, body),
      );
    const second = await rotate({ overlapHours: 2 });
    const third = await rotate({ overlapHours: 2 });
    let id = await declare();
    let [sent] = (await hook.waitFor(1, forIncident(id))) as ReceivedWebhook[];
    expect(standardVerifies(third.secret, sent as ReceivedWebhook)).toBe(true);
    expect(standardVerifies(second.secret, sent as ReceivedWebhook)).toBe(true);
    expect(standardVerifies(first, sent as ReceivedWebhook)).toBe(false);

    const emergency = await rotate({ overlapHours: 0 });
    expect(emergency.previousSecretExpiresAt).toBeNull();
    id = await declare();
    [sent] = (await hook.waitFor(1, forIncident(id))) as ReceivedWebhook[];
    expect(sent?.headers['x-service-signature-previous']).toBeUndefined();
    expect(standardVerifies(emergency.secret, sent as ReceivedWebhook)).toBe(true);
    expect(standardVerifies(third.secret, sent as ReceivedWebhook)).toBe(false);
  });

  it('refuses an overlap outside 0 to 168 hours', async () => {
    const endpoint = await register((await receiver()).url);
    for (const overlapHours of [-1, 169, 1.5]) {
      await problemOf(
        await postJson(`/webhooks/${endpoint.id}/rotate-secret`, writer, { overlapHours }),
        400,
        'validation_failed',
      );
    }
  });
});

describe('POST /webhooks/{id}/deliveries/{deliveryId}/redeliver', () => {
  it('sends a failed delivery once more, same id, attempt counting every earlier one, no retries', async () => {
    const hook = await receiver(answer(500));
    const endpoint = await register(hook.url);
    const id = await declare();
    const failures = await hook.waitFor(6, forIncident(id), 40_000);
    const deliveryId = String(failures[0]?.headers['x-service-delivery']);
    await logged(
      endpoint.id,
      'the failed delivery',
      (a) => a.deliveryId === deliveryId && a.outcome === 'failed',
    );

    // Still failing: one attempt (the seventh), logged failed, and nothing after it.
    const again = await postJson(`/webhooks/${endpoint.id}/deliveries/${deliveryId}/redeliver`, writer, {});
    expect(again.status).toBe(202);
    expect(await bodyOf(again)).toEqual({ deliveryId });
    await logged(endpoint.id, 'attempt 7 failed', (a) => a.attempt === 7 && a.outcome === 'failed');

    hook.behave(answer(200));
    await postJson(`/webhooks/${endpoint.id}/deliveries/${deliveryId}/redeliver`, writer, {});
    const [, , , , , , seventh, eighth] = await hook.waitFor(8, forIncident(id));
    expect([seventh?.body.attempt, eighth?.body.attempt]).toEqual([7, 8]);
    expect(eighth?.headers['x-service-delivery']).toBe(deliveryId);
    expect(eighth?.rawBody.replace('"attempt":8', '"attempt":1')).toBe(failures[0]?.rawBody);
    const entries = await logged(endpoint.id, 'attempt 8 succeeded', (a) => a.attempt === 8);
    expect(entries.filter((a) => a.deliveryId === deliveryId).map((a) => [a.attempt, a.outcome])).toEqual([
      [8, 'succeeded'],
      [7, 'failed'],
      [6, 'failed'],
      [5, 'retry_scheduled'],
      [4, 'retry_scheduled'],
      [3, 'retry_scheduled'],
      [2, 'retry_scheduled'],
      [1, 'retry_scheduled'],
    ]);
  });

  it('is 404 for a delivery the endpoint does not have', async () => {
    const endpoint = await register((await receiver()).url);
    const unknown = '00000000-0000-4000-8000-000000000000';
    await problemOf(
      await postJson(`/webhooks/${endpoint.id}/deliveries/${unknown}/redeliver`, writer, {}),
      404,
      'not_found',
    );
    await problemOf(
      await postJson(`/webhooks/${endpoint.id}/deliveries/not-an-id/redeliver`, writer, {}),
      404,
      'not_found',
    );
  });
});

describe('mis webhook', () => {
  it('lists, shows, disables, enables, tests and recovers an endpoint as the API does', async () => {
    const hook = await receiver();
    const endpoint = await register(hook.url);
    const listed = await cli<{ id: string; status: string }[]>(
      'webhook',
      'list',
      '--org',
      organisationId,
      '--json',
    );
    expect(listed.find((e) => e.id === endpoint.id)).toMatchObject({ status: 'enabled' });
    const shown = await cli<Endpoint>('webhook', 'show', endpoint.id, '--org', organisationId, '--json');
    expect(shown).toEqual(await bodyOf(await call(`/webhooks/${endpoint.id}`, { token: reader })));

    const since = new Date().toISOString();
    const disabled = await cli<Endpoint>(
      'webhook',
      'disable',
      endpoint.id,
      '--org',
      organisationId,
      '--json',
    );
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'manual' });
    const missed = await declare();
    await logged(endpoint.id, 'the skipped event', (a) => a.outcome === 'skipped');
    expect(await cli('webhook', 'enable', endpoint.id, '--org', organisationId, '--json')).toMatchObject({
      status: 'enabled',
    });
    expect(
      await cli('webhook', 'recover', endpoint.id, '--org', organisationId, '--since', since, '--json'),
    ).toEqual({ count: 1 });
    await hook.waitFor(1, forIncident(missed));

    const { deliveryId } = await cli<{ deliveryId: string }>(
      'webhook',
      'test',
      endpoint.id,
      '--org',
      organisationId,
      '--json',
    );
    const [test] = await hook.waitFor(1, (w) => w.body.event === 'webhook.test');
    expect(test?.headers['x-service-delivery']).toBe(deliveryId);
  });
});
