import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as relay } from '../../functions/outbox-relay/handler.js';
import { startLocalEventBus } from '../../infra/local/event-bus.js';
import { startStreamPoller } from '../../infra/local/stream-poller.js';
import { dynamodb, tableName } from '../../shared/adapters/dynamodb.js';
import { getIncident, incidentWrite } from '../../shared/adapters/incident-store.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { relayedSince } from '../../shared/adapters/relay-receipts.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { createWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { deliveryIdFor } from '../../shared/domain/delivery-id.js';
import { ConflictError } from '../../shared/domain/errors.js';
import { declareIncident, incidentEventData, moveIncident } from '../../shared/domain/incident.js';
import type { DeliveryMessage } from '../../shared/domain/webhook-events.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { useFreshTable } from '../support/table.js';
import { waitFor } from '../support/wait.js';

const received: DeliveryMessage[] = [];
/** Events whose deliveries the bus refuses, as EventBridge does when a target is unavailable. */
const refused = new Set<string>();
let bus: Awaited<ReturnType<typeof startLocalEventBus>>;

beforeAll(async () => {
  await useFreshTable();
  process.env.LOCAL_SECRET_KEY = randomBytes(32).toString('base64');
  process.env.EVENT_BUS_NAME = 'test-bus';
  bus = await startLocalEventBus({
    eventBusName: 'test-bus',
    sendToDeliveryQueue: async (body) => {
      const message = JSON.parse(body) as DeliveryMessage;
      if (refused.has(message.eventId)) throw new Error('target unavailable');
      received.push(message);
    },
  });
  process.env.EVENTBRIDGE_ENDPOINT = bus.endpoint;
});

afterAll(async () => {
  await bus.stop();
});

function newIncident(organisationId: string) {
  return declareIncident(
    randomUUID(),
    organisationId,
    { severity: 'critical', category: 'availability', detectedAt: new Date().toISOString() },
    'tok_test',
    new Date(),
  );
}

describe('the transactional outbox', () => {
  it('writes the change and its event together, or neither', async () => {
    const incident = newIncident(randomUUID());
    const declared = newDomainEvent(
      'incident.declared',
      incident.organisationId,
      incidentEventData(incident),
      new Date(),
    );
    await commitTransaction([incidentWrite(incident), outboxWrite(declared)]);
    expect((await getIncident(incident.organisationId, incident.id))?.status).toBe('declared');

    // A move computed from a stale read loses: no state change and no event.
    const contained = moveIncident(incident, 'contain', {}, 't', new Date());
    const closed = moveIncident(incident, 'close', {}, 't', new Date());
    await commitTransaction([
      incidentWrite(contained),
      outboxWrite(newDomainEvent('incident.contained', incident.organisationId, {}, new Date())),
    ]);
    const lostEvent = newDomainEvent('incident.closed', incident.organisationId, {}, new Date());
    await expect(commitTransaction([incidentWrite(closed), outboxWrite(lostEvent)])).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect((await getIncident(incident.organisationId, incident.id))?.status).toBe('contained');
    const { Item } = await dynamodb().send(
      new GetItemCommand({
        TableName: tableName(),
        Key: { pk: { S: `OUTBOX#${lostEvent.eventId}` }, sk: { S: 'EVENT' } },
      }),
    );
    expect(Item).toBeUndefined();
  });
});

describe('the relay', () => {
  it('fans each event out to the subscribed endpoints through the bus, once per endpoint, and resumes after a restart', async () => {
    const organisationId = randomUUID();
    const all = await createWebhookEndpoint({ organisationId, url: 'http://127.0.0.1:9/all', events: [] });
    const closedOnly = await createWebhookEndpoint({
      organisationId,
      url: 'http://127.0.0.1:9/closed',
      events: ['incident.closed'],
    });
    await createWebhookEndpoint({
      organisationId: randomUUID(),
      url: 'http://127.0.0.1:9/other-org',
      events: [],
    });
    const checkpointFile = join(mkdtempSync(join(tmpdir(), 'mis-stream-')), 'checkpoint.json');
    const endpoint = process.env.DYNAMODB_ENDPOINT ?? '';

    const incident = newIncident(organisationId);
    const declared = newDomainEvent(
      'incident.declared',
      organisationId,
      incidentEventData(incident),
      new Date(),
    );
    await commitTransaction([incidentWrite(incident), outboxWrite(declared)]);
    const poller = startStreamPoller({ endpoint, tableName: tableName(), checkpointFile, handler: relay });
    const first = await waitFor(
      'the declared event',
      () => received.find((m) => m.eventId === declared.eventId),
      { timeoutMs: 10_000 },
    );
    await poller.stop();
    expect(first).toEqual({
      deliveryId: deliveryIdFor(declared.eventId, all.endpoint.id),
      endpointId: all.endpoint.id,
      eventId: declared.eventId,
      event: 'incident.declared',
      organisationId,
      occurredAt: declared.occurredAt,
      data: JSON.parse(JSON.stringify(incidentEventData(incident))),
    });

    // Written while nothing polls the stream; relayed by the next poller from the checkpoint.
    const closed = moveIncident(incident, 'close', {}, 't', new Date());
    const closedEvent = newDomainEvent(
      'incident.closed',
      organisationId,
      incidentEventData(closed),
      new Date(),
    );
    await commitTransaction([incidentWrite(closed), outboxWrite(closedEvent)]);
    const restarted = startStreamPoller({ endpoint, tableName: tableName(), checkpointFile, handler: relay });
    await waitFor(
      'the closed event',
      () => received.filter((m) => m.eventId === closedEvent.eventId).length === 2,
      { timeoutMs: 10_000 },
    );
    // A later event, relayed in stream order after anything the restarted poller would relay again.
    const marker = newDomainEvent('member.created', organisationId, { id: randomUUID() }, new Date());
    await commitTransaction([outboxWrite(marker)]);
    await waitFor('the marker event', () => received.some((m) => m.eventId === marker.eventId), {
      timeoutMs: 10_000,
    });
    await restarted.stop();

    expect(received.filter((m) => m.eventId === declared.eventId)).toHaveLength(1);
    expect(
      received
        .filter((m) => m.eventId === closedEvent.eventId)
        .map((m) => m.endpointId)
        .sort(),
    ).toEqual([all.endpoint.id, closedOnly.endpoint.id].sort());
    expect(received.every((m) => m.organisationId === organisationId)).toBe(true);
    // Each relayed batch left a receipt: the sweep replays none of them.
    const receipted = (await relayedSince(new Date(Date.parse(declared.occurredAt) - 1000))).eventIds;
    for (const { eventId } of [declared, closedEvent, marker]) expect(receipted).toContain(eventId);
  });
});

describe('a relay batch', () => {
  it('relays in stream order and, when the bus refuses, resumes from the first record not relayed', async () => {
    const organisationId = randomUUID();
    const endpoint = await createWebhookEndpoint({ organisationId, url: 'http://127.0.0.1:9/a', events: [] });
    const events = Array.from({ length: 12 }, () =>
      newDomainEvent('member.created', organisationId, { id: randomUUID() }, new Date()),
    );
    const failing = events[11];
    if (!failing) throw new Error('no event');
    refused.add(failing.eventId);
    const records = events.map((e, i) => ({
      eventName: 'INSERT' as const,
      dynamodb: { SequenceNumber: String(1000 + i), NewImage: marshallForStream(e) },
    }));

    const result = await relay({ Records: records });

    // Eleven relayed, once each; the twelfth is where Lambda (or the local poller) starts again.
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '1011' }]);
    const relayed = received.filter((m) => m.organisationId === organisationId);
    expect(relayed.map((m) => m.eventId)).toEqual(events.slice(0, 11).map((e) => e.eventId));
    expect(relayed.every((m) => m.endpointId === endpoint.endpoint.id)).toBe(true);
    // A failed batch writes no receipt; the retry from the failed record names what it relayed.
    const since = new Date(Date.parse(events[0]?.occurredAt ?? '') - 1000);
    const ids = events.map((e) => e.eventId);
    expect([...(await relayedSince(since)).eventIds].filter((id) => ids.includes(id))).toEqual([]);
    refused.delete(failing.eventId);
    expect(await relay({ Records: records.slice(11) })).toEqual({ batchItemFailures: [] });
    expect([...(await relayedSince(since)).eventIds].filter((id) => ids.includes(id))).toEqual([
      failing.eventId,
    ]);
  });
});

function marshallForStream(event: ReturnType<typeof newDomainEvent>) {
  return marshall({ pk: `OUTBOX#${event.eventId}`, sk: 'EVENT', kind: 'outbox', ...event }) as never;
}
