import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  paginateScan,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as timers } from '../../functions/timers/handler.js';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.js';
import { ensureTable } from '../../infra/local/ensure-table.js';
import { lambdaContext } from '../../infra/local/lambda-context.js';
import { scheduledEvent } from '../../infra/local/schedule-poller.js';
import { dynamodb, tableName } from '../../shared/adapters/dynamodb.js';
import { incidentWrite } from '../../shared/adapters/incident-store.js';
import { keys } from '../../shared/adapters/keys.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { fileWrite, getFile } from '../../shared/adapters/sanctuary-file-store.js';
import {
  deadlineTimerCancellations,
  deadlineTimerWrite,
  TIMERS_INDEX,
  timerWrite,
} from '../../shared/adapters/timer-store.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { fireDueTimers, type TimerRun } from '../../shared/app/fire-due-timers.js';
import {
  DEADLINE_ALARM_AFTER_MS,
  declareIncident,
  EVENT_FOR_STATUS,
  type Incident,
  incidentEventData,
  moveIncident,
} from '../../shared/domain/incident.js';
import { registerFile } from '../../shared/domain/sanctuary-file.js';
import { expiryTimer } from '../../shared/domain/timer.js';
import type { DomainEvent, WebhookEventName } from '../../shared/domain/webhook-events.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { createTableInput } from '../../shared/topology/table.js';
import { useFreshTable } from '../support/table.js';

const HOUR = 3600 * 1000;

beforeAll(async () => {
  await useFreshTable();
});

const runTimers = () =>
  timers(scheduledEvent('timers-test'), lambdaContext('timers', 50_000)) as Promise<TimerRun>;

/** Declares as POST /incidents does: the incident, its event and its deadline timer in one transaction. */
async function declare(organisationId: string, detectedAgoMs: number): Promise<Incident> {
  const now = new Date();
  const detectedAt = new Date(now.getTime() - detectedAgoMs).toISOString();
  const incident = declareIncident(
    randomUUID(),
    organisationId,
    { severity: 'high', category: 'confidentiality', detectedAt },
    'tok',
    now,
  );
  const declared = newDomainEvent('incident.declared', organisationId, incidentEventData(incident), now);
  await commitTransaction([
    incidentWrite(incident),
    outboxWrite(declared),
    deadlineTimerWrite(incident, now),
  ]);
  return incident;
}

/** Moves as POST /incidents/{id}/<action> does, cancelling the timer when the incident leaves the open states. */
async function move(incident: Incident, action: 'contain' | 'notify' | 'close'): Promise<Incident> {
  const moved = moveIncident(incident, action, {}, 'tok', new Date());
  const event = newDomainEvent(
    EVENT_FOR_STATUS[moved.status],
    incident.organisationId,
    incidentEventData(moved),
    new Date(),
  );
  await commitTransaction([incidentWrite(moved), outboxWrite(event), ...deadlineTimerCancellations(moved)]);
  return moved;
}

/** Every outbox event of a kind (a test-only Scan of this file's own table). */
async function outboxEvents(event: WebhookEventName): Promise<DomainEvent[]> {
  const found: DomainEvent[] = [];
  const pages = paginateScan(
    { client: dynamodb() },
    {
      TableName: tableName(),
      FilterExpression: 'kind = :outbox AND #event = :event',
      ExpressionAttributeNames: { '#event': 'event' },
      ExpressionAttributeValues: marshall({ ':outbox': 'outbox', ':event': event }),
      ConsistentRead: true,
    },
  );
  for await (const page of pages)
    for (const item of page.Items ?? []) found.push(unmarshall(item) as DomainEvent);
  return found;
}

const alarmsFor = async (incidentId: string) =>
  (await outboxEvents('incident.deadline_72h')).filter((e) => e.data.id === incidentId);

async function item(key: { pk: string; sk: string }) {
  const { Item } = await dynamodb().send(
    new GetItemCommand({ TableName: tableName(), Key: marshall(key), ConsistentRead: true }),
  );
  return Item ? unmarshall(Item) : undefined;
}

describe('the 72-hour deadline alarm', () => {
  it('fires once per incident when two timer runs race, and not for an incident under 60 hours', async () => {
    const organisationId = randomUUID();
    const due = await Promise.all(Array.from({ length: 12 }, () => declare(organisationId, 61 * HOUR)));
    const early = await declare(organisationId, 59 * HOUR);

    const runs = await Promise.all([runTimers(), runTimers()]);
    // A run that met the other's transaction on the same timer leaves it due: the next run fires it.
    const last = await runTimers();

    expect(runs[0].fired + runs[1].fired + last.fired).toBe(12);
    expect(last.fired).toBeLessThanOrEqual(runs[0].deferred + runs[1].deferred);
    const allAlarms = await outboxEvents('incident.deadline_72h');
    for (const incident of due) {
      const alarms = allAlarms.filter((e) => e.data.id === incident.id);
      expect(alarms, incident.id).toHaveLength(1);
      expect(alarms[0]).toMatchObject({
        event: 'incident.deadline_72h',
        organisationId,
        data: JSON.parse(JSON.stringify(incidentEventData(incident))),
      });
      const timer = await item(keys.incidentDeadlineTimer(organisationId, incident.id));
      expect(timer).toMatchObject({ eventId: alarms[0]?.eventId, firedAt: alarms[0]?.occurredAt });
      expect(timer?.timerPartition).toBeUndefined();
    }
    expect(await alarmsFor(early.id)).toEqual([]);
    expect((await runTimers()).due).toBe(0);
  });

  it('never fires before 60 hours have passed', async () => {
    const incident = await declare(randomUUID(), 60 * HOUR - 60_000);
    const dueAt = Date.parse(incident.detectedAt) + DEADLINE_ALARM_AFTER_MS;
    expect((await fireDueTimers({ now: new Date(dueAt - 1) })).fired).toBe(0);
    expect(await alarmsFor(incident.id)).toEqual([]);
    expect((await fireDueTimers({ now: new Date(dueAt) })).fired).toBe(1);
    expect(await alarmsFor(incident.id)).toHaveLength(1);
  });

  it('is cancelled by notify and close, and still fires for a contained incident', async () => {
    const organisationId = randomUUID();
    const notified = await move(await declare(organisationId, 61 * HOUR), 'notify');
    const closed = await move(await move(await declare(organisationId, 61 * HOUR), 'contain'), 'close');
    const contained = await move(await declare(organisationId, 61 * HOUR), 'contain');
    expect(await item(keys.incidentDeadlineTimer(organisationId, notified.id))).toBeUndefined();

    await runTimers();
    expect(await alarmsFor(notified.id)).toEqual([]);
    expect(await alarmsFor(closed.id)).toEqual([]);
    const [alarm] = await alarmsFor(contained.id);
    expect(alarm?.data).toMatchObject({ id: contained.id, status: 'contained' });
  });

  it('is dropped, without an event, when the incident is found notified at firing time', async () => {
    const organisationId = randomUUID();
    const incident = await declare(organisationId, 61 * HOUR);
    // As if the move's delete had not reached the index yet: the incident moved, the timer stayed.
    const notified = moveIncident(incident, 'notify', {}, 'tok', new Date());
    await commitTransaction([incidentWrite(notified)]);

    expect(await runTimers()).toMatchObject({ fired: 0, dropped: 1 });
    expect(await alarmsFor(incident.id)).toEqual([]);
    expect(await item(keys.incidentDeadlineTimer(organisationId, incident.id))).toMatchObject({
      droppedBecause: 'incident notified',
    });
    expect((await runTimers()).due).toBe(0);
  });
});

describe('file expiry', () => {
  it('marks the file expired and emits its event once, without the name', async () => {
    const organisationId = randomUUID();
    const registeredAt = new Date(Date.now() - 10_000);
    const file = registerFile(
      randomUUID(),
      {
        name: 'Statement of A. Person.pdf',
        expiresAt: new Date(registeredAt.getTime() + 5_000).toISOString(),
      },
      registeredAt,
    );
    await commitTransaction([
      fileWrite(organisationId, file),
      timerWrite(expiryTimer(organisationId, file), registeredAt),
    ]);

    const runs = await Promise.all([runTimers(), runTimers(), runTimers()]);
    await runTimers();
    expect(runs.reduce((sum, run) => sum + run.fired, 0)).toBeLessThanOrEqual(1);
    const events = (await outboxEvents('sanctuary.file.expired')).filter((e) => e.data.id === file.id);
    expect(events).toHaveLength(1);
    const stored = await getFile(organisationId, file.id);
    expect(stored?.expiredAt).toEqual(events[0]?.data.expiredAt);
    expect(events[0]?.data).toEqual({ id: file.id, expiresAt: file.expiresAt, expiredAt: stored?.expiredAt });
    expect(JSON.stringify(events)).not.toContain('Person');
  });
});

describe('a run', () => {
  it('reads only what is due, a page at a time', async () => {
    const organisationId = randomUUID();
    const due = await Promise.all(Array.from({ length: 7 }, () => declare(organisationId, 61 * HOUR)));
    await Promise.all(Array.from({ length: 5 }, () => declare(organisationId, 10 * HOUR)));
    const run = await fireDueTimers({ pageSize: 2 });
    expect(run).toMatchObject({ due: 7, fired: 7, failed: 0 });
    for (const incident of due) expect(await alarmsFor(incident.id)).toHaveLength(1);
  });

  it('stops taking pages when it runs out of time, leaving the rest due', async () => {
    const organisationId = randomUUID();
    await Promise.all(Array.from({ length: 4 }, () => declare(organisationId, 61 * HOUR)));
    expect(await fireDueTimers({ pageSize: 1, outOfTime: () => true })).toMatchObject({ due: 1, fired: 1 });
    expect(await fireDueTimers()).toMatchObject({ due: 3, fired: 3 });
  });
});

describe('ensureTable', () => {
  // On an engine of its own: DynamoDB Local builds new indexes in one background thread that scans
  // every table, started once per engine, with no catch around its loop (its bytecode). Beside
  // other files making tables on the shared engine, an index here once stayed CREATING for the
  // whole 120 s ensureTable waits. `npm start` adds indexes before anything else uses its engine.
  it('adds the timers index to a table made before it, with the timers already there', {
    timeout: 60_000,
  }, async () => {
    const engine = await startDynamoDbLocal();
    try {
      const client = new DynamoDBClient({
        endpoint: engine.endpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const name = `old-${randomUUID()}`;
      const current = createTableInput(name);
      await client.send(
        new CreateTableCommand({
          ...current,
          GlobalSecondaryIndexes: current.GlobalSecondaryIndexes?.filter((i) => i.IndexName !== TIMERS_INDEX),
          AttributeDefinitions: current.AttributeDefinitions?.filter(
            (a) => !['timerPartition', 'dueAt'].includes(a.AttributeName ?? ''),
          ),
        }),
      );
      await client.send(
        new PutItemCommand({
          TableName: name,
          Item: marshall({ pk: 'P', sk: 'S', timerPartition: 'TIMERS#0', dueAt: '2026-01-01T00:00:00.000Z' }),
        }),
      );

      expect(await ensureTable(client, name)).toBe('existing');
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      expect(Table?.GlobalSecondaryIndexes?.map((i) => [i.IndexName, i.IndexStatus]).sort()).toEqual([
        ['gsi1', 'ACTIVE'],
        [TIMERS_INDEX, 'ACTIVE'],
      ]);
      const { Items } = await client.send(
        new QueryCommand({
          TableName: name,
          IndexName: TIMERS_INDEX,
          KeyConditionExpression: 'timerPartition = :p AND dueAt <= :now',
          ExpressionAttributeValues: marshall({ ':p': 'TIMERS#0', ':now': new Date().toISOString() }),
        }),
      );
      expect(Items).toHaveLength(1);
      expect(await ensureTable(client, name)).toBe('existing');
      client.destroy();
    } finally {
      await engine.stop();
    }
  });
});
