import { randomBytes, randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqsPoller, startSqsPoller } from '../../infra/local/sqs-poller.js';
import { listDeliveries } from '../../shared/adapters/delivery-log.js';
import {
  readEndpointPace,
  settleEndpointPace,
  takeInFlightSlot,
} from '../../shared/adapters/endpoint-pace-store.js';
import { notePendingDelivery, overduePendingDeliveries } from '../../shared/adapters/pending-deliveries.js';
import { createWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { countStuckDeliveries, stuckDeliveries } from '../../shared/app/stuck-deliveries.js';
import { ENDPOINT_PACE, isLimited } from '../../shared/domain/endpoint-pace.js';
import type { DeliveryMessage } from '../../shared/domain/webhook-events.js';
import { type DeliveryQueues, startDeliveryQueues } from '../support/delivery-queues.js';
import { useFreshTable } from '../support/table.js';
import { waitFor } from '../support/wait.js';
import { answer, type Behaviour, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * Independence and stuck deliveries on the real parts: DynamoDB Local holds each endpoint's pace
 * and the pending notes, the SQS emulator the delivery queue, the local event source mapping runs
 * the delivery handler, and subscribers are real HTTP servers on 127.0.0.1.
 */

const organisationId = randomUUID();
let receiver: Receiver;
let queues: DeliveryQueues;
let poller: SqsPoller;
const MINUTE = 60_000;

function deliveryMessage(endpointId: string): DeliveryMessage {
  return {
    deliveryId: randomUUID(),
    endpointId,
    eventId: randomUUID(),
    event: 'incident.declared',
    organisationId,
    occurredAt: new Date().toISOString(),
    data: {
      id: randomUUID(),
      severity: 'low',
      category: 'availability',
      detectedAt: new Date().toISOString(),
    },
  };
}

async function endpointAnswering(path: string, behaviour: Behaviour) {
  const { endpoint } = await createWebhookEndpoint({
    organisationId,
    url: receiver.route(path, behaviour),
    events: [],
  });
  return endpoint;
}

const enqueue = (message: DeliveryMessage) =>
  queues.client.send(
    new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: JSON.stringify(message) }),
  );

const pendingNote = async (deliveryId: string) =>
  (await overduePendingDeliveries(new Date(Date.now() + 24 * 60 * MINUTE))).find(
    (p) => p.deliveryId === deliveryId,
  );

const attemptsOf = async (endpointId: string, deliveryId: string) =>
  (await listDeliveries(organisationId, endpointId, { limit: 100 })).deliveries.filter(
    (d) => d.deliveryId === deliveryId,
  );

beforeAll(async () => {
  await useFreshTable();
  receiver = await startReceiver();
  queues = await startDeliveryQueues();
  Object.assign(process.env, {
    LOCAL_SECRET_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_RETRY_DELAYS: '1,1,1,1,1',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    SQS_ENDPOINT: queues.endpoint,
    DELIVERY_QUEUE_URL: queues.queueUrl,
  });
  const { handler } = await import('../../functions/deliver-webhook/handler.js');
  poller = await startSqsPoller({ endpoint: queues.endpoint, queueUrl: queues.queueUrl, handler });
});

afterAll(async () => {
  await poller?.stop();
  await queues?.stop();
  await receiver?.close();
});

describe("an endpoint's pace", () => {
  it('is limited after three failed or slow attempts in a row, to two attempts in flight; a fast success lifts it', async () => {
    const endpointId = randomUUID();
    const now = Date.now();
    for (let strike = 0; strike < ENDPOINT_PACE.strikesToLimit; strike++) {
      expect(isLimited(await readEndpointPace(organisationId, endpointId), now)).toBe(false);
      await settleEndpointPace(
        organisationId,
        endpointId,
        { strike: true, hadStrikes: strike > 0, slot: undefined },
        now,
      );
    }
    expect(isLimited(await readEndpointPace(organisationId, endpointId), now)).toBe(true);
    expect(
      isLimited(await readEndpointPace(organisationId, endpointId), now + ENDPOINT_PACE.limitedForMs),
    ).toBe(false);

    const first = await takeInFlightSlot(organisationId, endpointId, now);
    const second = await takeInFlightSlot(organisationId, endpointId, now);
    expect([first, second]).toEqual([0, 1]);
    expect(await takeInFlightSlot(organisationId, endpointId, now)).toBeUndefined();
    // A slot whose worker died frees itself once the longest attempt would have ended.
    expect(await takeInFlightSlot(organisationId, endpointId, now + MINUTE)).toBe(0);

    await settleEndpointPace(organisationId, endpointId, { strike: false, hadStrikes: true, slot: 1 }, now);
    expect(await readEndpointPace(organisationId, endpointId)).toMatchObject({ strikes: 0 });
    expect(await takeInFlightSlot(organisationId, endpointId, now)).toBe(1);
  });

  it("sends a limited endpoint's delivery back to the queue while its slots are held: same delivery id, no attempt spent", async () => {
    const endpoint = await endpointAnswering('/limited', answer(200, 'thanks'));
    const now = Date.now();
    for (let strike = 0; strike < ENDPOINT_PACE.strikesToLimit; strike++) {
      await settleEndpointPace(
        organisationId,
        endpoint.id,
        { strike: true, hadStrikes: true, slot: undefined },
        now,
      );
    }
    // Two slow attempts under way elsewhere hold both slots.
    const held = [
      await takeInFlightSlot(organisationId, endpoint.id),
      await takeInFlightSlot(organisationId, endpoint.id),
    ];
    expect(held).toEqual([0, 1]);

    const message = deliveryMessage(endpoint.id);
    await enqueue(message);
    const note = await waitFor('the delivery noted as sent back', () => pendingNote(message.deliveryId));
    expect(note).toMatchObject({ why: 'endpoint_limited', nextAttempt: 1, endpointId: endpoint.id });
    expect(receiver.requestsTo('/limited')).toHaveLength(0);
    expect(await attemptsOf(endpoint.id, message.deliveryId)).toEqual([]);

    // The attempts elsewhere end (slowly: still struck), freeing the slots.
    for (const slot of held) {
      await settleEndpointPace(organisationId, endpoint.id, { strike: true, hadStrikes: true, slot });
    }
    const [request] = await receiver.waitFor(1, (r) => r.path === '/limited', 30_000);
    expect(request?.headers['x-service-delivery']).toBe(message.deliveryId);
    expect(request?.body).toMatchObject({ attempt: 1 });
    const attempts = await waitFor('the attempt logged', async () => {
      const found = await attemptsOf(endpoint.id, message.deliveryId);
      return found.length > 0 ? found : undefined;
    });
    expect(attempts).toMatchObject([{ attempt: 1, outcome: 'succeeded' }]);
    // A fast success lifts the limit, and the delivery is no longer pending.
    await waitFor(
      'the pending note cleared',
      async () => (await pendingNote(message.deliveryId)) === undefined,
    );
    expect(await readEndpointPace(organisationId, endpoint.id)).toMatchObject({ strikes: 0 });
  });
});

describe('a stuck delivery', () => {
  it('is noted with its next attempt when retried, listed and counted once that is overdue, and cleared when it ends', async () => {
    let down = true;
    const endpoint = await endpointAnswering('/down', (n, request, response) =>
      answer(down ? 503 : 200)(n, request, response),
    );
    const message = deliveryMessage(endpoint.id);
    await enqueue(message);
    const note = await waitFor('a retry noted pending', () => pendingNote(message.deliveryId));
    expect(note).toMatchObject({ why: 'retry_scheduled', organisationId, endpointId: endpoint.id });
    const due = Date.parse(note.nextAttemptAt);

    const listed = async (now: Date) =>
      (await stuckDeliveries({ now, olderThanMs: 5 * MINUTE })).map((d) => d.deliveryId);
    expect(await listed(new Date())).not.toContain(message.deliveryId);
    // Had its next attempt never come (the message lost), six minutes later it is stuck.
    const later = new Date(due + 6 * MINUTE);
    expect(await listed(later)).toContain(message.deliveryId);
    expect(await countStuckDeliveries(later)).toBeGreaterThanOrEqual(1);

    down = false;
    await waitFor(
      'the pending note cleared once delivered',
      async () => (await pendingNote(message.deliveryId)) === undefined,
    );
    expect(await listed(later)).not.toContain(message.deliveryId);
  });

  it('is listed with how long it is overdue when its message was lost', async () => {
    const deliveryId = randomUUID();
    const nextAttemptAt = new Date(Date.now() - 10 * MINUTE).toISOString();
    await notePendingDelivery({
      organisationId,
      endpointId: randomUUID(),
      deliveryId,
      eventId: randomUUID(),
      event: 'member.created',
      nextAttempt: 3,
      nextAttemptAt,
      why: 'retry_scheduled',
    });
    const stuck = (await stuckDeliveries()).find((d) => d.deliveryId === deliveryId);
    expect(stuck).toMatchObject({ nextAttempt: 3, nextAttemptAt, event: 'member.created' });
    expect(stuck?.overdueSeconds).toBeGreaterThanOrEqual(600);
  });
});
