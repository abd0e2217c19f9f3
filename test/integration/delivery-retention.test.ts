import { randomBytes, randomUUID } from 'node:crypto';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredItems } from '../../infra/local/ttl-sweeper.js';
import { listDeliveries, recordAttempt } from '../../shared/adapters/delivery-log.js';
import { attemptsMadeSoFar, findDelivery, listRecoverable } from '../../shared/adapters/delivery-records.js';
import { keys } from '../../shared/adapters/keys.js';
import { createWebhookEndpoint, getWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { deliverWebhook } from '../../shared/app/deliver-webhook.js';
import type { DeliveryOutcome } from '../../shared/domain/delivery-attempt.js';
import type { DeliveryMessage } from '../../shared/domain/webhook-events.js';
import { useFreshTable } from '../support/table.js';
import { answer, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * The delivery log's retention against DynamoDB Local: what has expired is never shown, redelivered or
 * recovered (on AWS TTL deletes it some time later), and the local sweeper removes it. Also the
 * `failing` disable, through the delivery use case and a real receiver.
 */
const organisationId = randomUUID();
let tableName: string;
let client: DynamoDBClient;
let receiver: Receiver;

function message(endpointId: string): DeliveryMessage {
  return {
    deliveryId: randomUUID(),
    endpointId,
    eventId: randomUUID(),
    event: 'member.created',
    organisationId,
    occurredAt: new Date().toISOString(),
    data: { id: randomUUID(), membershipType: 'regular' },
  };
}

/** The log entry of one attempt of `m` that started `at`. */
function logged(m: DeliveryMessage, at: Date, outcome: DeliveryOutcome, attempt = 1) {
  return {
    attempt: { ...m, attempt, at: at.toISOString(), outcome, latencyMs: 3 },
    event: { occurredAt: m.occurredAt, data: m.data },
  };
}

beforeAll(async () => {
  tableName = await useFreshTable();
  Object.assign(process.env, {
    LOCAL_SECRET_KEY: randomBytes(32).toString('base64'),
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  });
  client = new DynamoDBClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  receiver = await startReceiver();
});

afterAll(async () => {
  client?.destroy();
  await receiver?.close();
});

describe('the delivery log retention', () => {
  it('hides an expired entry from every read, and the local sweeper removes it', async () => {
    const endpointId = randomUUID();
    const old = message(endpointId);
    const fresh = message(endpointId);
    const longAgo = new Date(Date.now() - 91 * 86_400_000);
    const freshAt = new Date();
    for (const [m, at] of [
      [old, longAgo],
      [fresh, freshAt],
    ] as const) {
      await recordAttempt(logged(m, at, 'failed'));
    }
    const listed = await listDeliveries(organisationId, endpointId, { limit: 100 });
    expect(listed.deliveries.map((d) => d.deliveryId)).toEqual([fresh.deliveryId]);
    expect(await findDelivery(organisationId, endpointId, old.deliveryId)).toBeUndefined();
    expect(await findDelivery(organisationId, endpointId, fresh.deliveryId)).toEqual(fresh);
    const recoverable = await listRecoverable(organisationId, endpointId, new Date(longAgo.getTime() - 1000));
    expect(recoverable.map((m) => m.deliveryId)).toEqual([fresh.deliveryId]);

    // The expired entry is gone after a sweep; the fresh one stays.
    expect(await sweepExpiredItems(client, tableName)).toBeGreaterThanOrEqual(1);
    const stored = async (m: DeliveryMessage, at: Date) =>
      (
        await client.send(
          new GetItemCommand({
            TableName: tableName,
            Key: marshall({
              pk: keys.deliveries(organisationId, endpointId),
              sk: `ATTEMPT#${at.toISOString()}#${m.deliveryId}#001`,
            }),
          }),
        )
      ).Item;
    expect(await stored(old, longAgo)).toBeUndefined();
    expect(await stored(fresh, freshAt)).toBeDefined();
  });

  it('keeps the exact event for as long as the log keeps the delivery (90 days by default)', async () => {
    const endpointId = randomUUID();
    const m = message(endpointId);
    const eightyNineDaysAgo = new Date(Date.now() - 89 * 86_400_000);
    await recordAttempt(logged(m, eightyNineDaysAgo, 'succeeded'));
    expect(await findDelivery(organisationId, endpointId, m.deliveryId)).toEqual(m);
  });

  it('counts the attempts a delivery has made (not its skips), and hides it from another endpoint', async () => {
    const endpointId = randomUUID();
    const m = message(endpointId);
    const t = Date.now() - 60_000;
    await recordAttempt(logged(m, new Date(t), 'retry_scheduled', 1));
    await recordAttempt(logged(m, new Date(t + 1000), 'failed', 2));
    await recordAttempt(logged(m, new Date(t + 2000), 'skipped', 3));
    expect(await attemptsMadeSoFar(m)).toBe(2);
    expect(await findDelivery(organisationId, endpointId, m.deliveryId)).toEqual(m);
    // The same delivery id asked for through another endpoint (or organisation) is unknown there.
    expect(await attemptsMadeSoFar({ ...m, endpointId: randomUUID() })).toBe(0);
    expect(await findDelivery(randomUUID(), endpointId, m.deliveryId)).toBeUndefined();
    // Its newest entry is a skip: recover takes it, from a `since` before that entry only.
    const since = (s: number) => listRecoverable(organisationId, endpointId, new Date(s));
    expect((await since(t - 1)).map((d) => d.deliveryId)).toEqual([m.deliveryId]);
    expect(await since(t + 2001)).toEqual([]);
  });
});

describe('an endpoint that does nothing but fail', () => {
  it('is disabled as failing once the failures have lasted WEBHOOK_DISABLE_AFTER_HOURS; its later events are kept as skipped', async () => {
    const { endpoint } = await createWebhookEndpoint({
      organisationId,
      url: receiver.route('/failing', answer(500)),
      events: [],
    });
    // A one-hour window: a failure starts the streak and disables nothing yet.
    const patient = { delays: [1, 1, 1, 1, 1], disableAfterHours: 1 };
    expect((await deliverWebhook(message(endpoint.id), 1, patient)).outcome).toBe('retry_scheduled');
    expect(await getWebhookEndpoint(organisationId, endpoint.id)).toMatchObject({
      disabledAt: null,
      failingSince: expect.any(String),
    });
    // A window already over (as after 120 hours of failures): the next failure disables it.
    const options = { delays: [1, 1, 1, 1, 1], disableAfterHours: 0 };
    expect((await deliverWebhook(message(endpoint.id), 2, options)).outcome).toBe('retry_scheduled');
    expect(await getWebhookEndpoint(organisationId, endpoint.id)).toMatchObject({
      disabledReason: 'failing',
      disabledAt: expect.any(String),
    });
    const later = message(endpoint.id);
    expect((await deliverWebhook(later, 1, options)).outcome).toBe('skipped');
    const recoverable = await listRecoverable(organisationId, endpoint.id, new Date(Date.now() - 60_000));
    expect(recoverable.map((m) => m.deliveryId)).toContain(later.deliveryId);
    expect(receiver.requestsTo('/failing')).toHaveLength(2);
  });

  it('has its failure streak ended by a success', async () => {
    const { endpoint } = await createWebhookEndpoint({
      organisationId,
      url: receiver.route('/recovers', answer(500)),
      events: [],
    });
    const options = { delays: [1, 1, 1, 1, 1], disableAfterHours: 1 };
    await deliverWebhook(message(endpoint.id), 1, options);
    expect((await getWebhookEndpoint(organisationId, endpoint.id))?.failingSince).not.toBeNull();
    receiver.route('/recovers', answer(200));
    expect((await deliverWebhook(message(endpoint.id), 1, options)).outcome).toBe('succeeded');
    expect((await getWebhookEndpoint(organisationId, endpoint.id))?.failingSince).toBeNull();
  });
});
