import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as timers } from '../../functions/timers/handler.js';
import { lambdaContext } from '../../infra/local/lambda-context.js';
import { scheduledEvent } from '../../infra/local/schedule-poller.js';
import { dynamodb, tableName } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { relayedSince, writeRelayReceipt } from '../../shared/adapters/relay-receipts.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { sweepBound, sweepUnrelayedOutbox, unrelayedEvents } from '../../shared/app/sweep-outbox.js';
import { type DomainEvent, newDomainEvent } from '../../shared/domain/webhook-events.js';
import { METRIC } from '../../shared/topology/metrics.js';
import { emfDocumentsOf } from '../support/emf.js';
import { useFreshTable } from '../support/table.js';

// Each test starts without a sweep checkpoint.
beforeEach(async () => {
  await useFreshTable();
});

const MINUTE = 60_000;
const THRESHOLD = 5 * MINUTE;
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * MINUTE);

async function item(pk: string) {
  const { Item } = await dynamodb().send(
    new GetItemCommand({ TableName: tableName(), Key: marshall({ pk, sk: 'EVENT' }) }),
  );
  return Item ? unmarshall(Item) : undefined;
}

/**
 * Runs the timers function as its schedule does, and answers the outbox sweep's metrics it
 * published; `failed` says whether the run failed.
 */
async function timersRun(): Promise<{ metrics: Record<string, unknown>; failed: boolean }> {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const failed = await timers(scheduledEvent('sweep-test'), lambdaContext('timers', 50_000)).then(
      () => false,
      () => true,
    );
    const [document, ...more] = emfDocumentsOf(stdout).filter((doc) => METRIC.outboxReplayFailures in doc);
    expect(more).toEqual([]);
    return {
      metrics: {
        [METRIC.outboxReplays]: document?.[METRIC.outboxReplays],
        [METRIC.outboxReplayFailures]: document?.[METRIC.outboxReplayFailures],
      },
      failed,
    };
  } finally {
    stdout.mockRestore();
    vi.unstubAllEnvs();
  }
}

/** An outbox item committed `minutesAgo`, as a write's transaction commits it, that no relay receipt names. */
async function unrelayedEvent(minutesAgo: number, overrides: Partial<DomainEvent> = {}) {
  const event = {
    ...newDomainEvent(
      'member.created',
      randomUUID(),
      { member: { id: randomUUID() } },
      new Date(Date.now() - minutesAgo * MINUTE),
    ),
    ...overrides,
  };
  await commitTransaction([outboxWrite(event)]);
  return event;
}

/** An event id whose outbox items fall in the sweep's shard `shard` (0 to 3). */
const inShard = (shard: number) => `0${shard}${randomUUID().slice(2)}`;

const ITEM_SIZE_LIMIT = 400 * 1024;

/**
 * Data that makes the largest outbox item the table takes: its replay's key is longer, so the
 * table refuses the replay. Found by trying items of the outbox item's exact shape outside the
 * outbox index (their index partition is another of the same length).
 */
async function dataTheReplayOutgrows(): Promise<Record<string, unknown>> {
  const fits = async (length: number) => {
    const data = { note: 'x'.repeat(length) };
    const { write } = outboxWrite(newDomainEvent('member.created', randomUUID(), data, new Date()));
    const item = {
      ...write.Put?.Item,
      timerPartition: { S: keys.outboxByTime(0).replace('OUTBOX', 'PROBES') },
    };
    try {
      await dynamodb().send(new PutItemCommand({ TableName: tableName(), Item: item }));
      return true;
    } catch (error) {
      if ((error as Error).name === 'ValidationException') return false;
      throw error;
    }
  };
  let [low, high] = [ITEM_SIZE_LIMIT - 2048, ITEM_SIZE_LIMIT];
  expect(await fits(low)).toBe(true);
  expect(await fits(high)).toBe(false);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await fits(middle)) low = middle;
    else high = middle;
  }
  return { note: 'x'.repeat(low) };
}

const replayOf = (eventId: string, replay: number) => item(`OUTBOX#${eventId}#REPLAY#${replay}`);

/** A receipt for events of the relay's own: it has got as far as `minutesAgo`. */
const relayProgress = (minutesAgo = 0) =>
  writeRelayReceipt([{ eventId: randomUUID(), onStreamAt: inMinutes(-minutesAgo).toISOString() }]);

/** The receipt the relay writes for these events' originals. */
const receiptFor = (...events: { eventId: string; occurredAt: string }[]) =>
  writeRelayReceipt(events.map((e) => ({ eventId: e.eventId, onStreamAt: e.occurredAt })));

describe('the outbox sweep', () => {
  it('puts an event no relay receipt names back on the stream, with the same event id, and lists it until then', async () => {
    const lost = await unrelayedEvent(10);
    const recent = await unrelayedEvent(0);
    await relayProgress();
    const overdue = (await unrelayedEvents({ olderThanMs: THRESHOLD })).map((i) => i.event.eventId);
    expect(overdue).toEqual([lost.eventId]);

    const sweep = await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD });
    expect(sweep).toEqual({ overdue: 1, replayed: 1, failed: 0 });
    // A new INSERT of an outbox item: the stream filter passes it to the relay, which fans it out
    // with delivery ids derived from the same event id.
    expect(await replayOf(lost.eventId, 1)).toMatchObject({
      kind: 'outbox',
      eventId: lost.eventId,
      event: lost.event,
      organisationId: lost.organisationId,
      occurredAt: lost.occurredAt,
      data: lost.data,
    });
    expect(await replayOf(recent.eventId, 1)).toBeUndefined();
    // Still listed, by its newest copy, until a relay names it.
    const listed = await unrelayedEvents({ olderThanMs: THRESHOLD });
    expect(listed.map((i) => [i.event.eventId, i.replays])).toEqual([[lost.eventId, 1]]);
  });

  it('replays a copy again only one threshold after it was put on the stream', async () => {
    const lost = await unrelayedEvent(10);
    await relayProgress();
    await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD });
    expect(await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD })).toEqual({
      overdue: 0,
      replayed: 0,
      failed: 0,
    });
    expect(await replayOf(lost.eventId, 2)).toBeUndefined();

    await writeRelayReceipt([{ eventId: randomUUID(), onStreamAt: inMinutes(6).toISOString() }]);
    await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD, now: inMinutes(6) });
    expect(await replayOf(lost.eventId, 2)).toMatchObject({ eventId: lost.eventId, replays: 2 });
  });

  it('leaves alone what a relay receipt names, even a receipt written after the replay', async () => {
    const relayed = await unrelayedEvent(10);
    const late = await unrelayedEvent(10);
    await receiptFor(relayed);
    await relayProgress();
    const listed = await unrelayedEvents({ olderThanMs: 0, now: inMinutes(1) });
    expect(listed.map((i) => i.event.eventId)).toEqual([late.eventId]);

    await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD });
    expect(await replayOf(relayed.eventId, 1)).toBeUndefined();
    expect(await replayOf(late.eventId, 1)).toBeDefined();
    // The original's relay was only late: once its receipt is written, the replay is not replayed.
    await receiptFor(late);
    // The relay has got past the replay: without the receipt, the sweep would replay it again.
    await writeRelayReceipt([{ eventId: randomUUID(), onStreamAt: inMinutes(6).toISOString() }]);
    expect(await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD, now: inMinutes(6) })).toEqual({
      overdue: 0,
      replayed: 0,
      failed: 0,
    });
    expect(await replayOf(late.eventId, 2)).toBeUndefined();
    expect(await unrelayedEvents({ olderThanMs: 0, now: inMinutes(6) })).toEqual([]);
  });

  it('goes on where a run that ran out of time stopped, and sweeps nothing twice', async () => {
    const events = await Promise.all([12, 11, 10, 9].map((minutesAgo) => unrelayedEvent(minutesAgo)));
    await relayProgress();
    const first = await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD, pageSize: 1, outOfTime: () => true });
    expect(first.replayed).toBe(1);
    const second = await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD });
    expect(second.replayed).toBe(events.length - 1);
    for (const event of events) expect(await replayOf(event.eventId, 1)).toBeDefined();
    expect(await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD })).toEqual({
      overdue: 0,
      replayed: 0,
      failed: 0,
    });
  });

  it('finds an item whose index entry showed up after the sweep had passed its time', async () => {
    await relayProgress();
    await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD });
    // Put on the stream 30 s before where the sweep got to, but only in the index now.
    const late = await unrelayedEvent(5.5);
    await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD });
    expect(await replayOf(late.eventId, 1)).toBeDefined();
  });

  it('leaves what the relay has not reached yet to the relay, up to six thresholds', async () => {
    // The relay is 20 minutes behind: items after its progress are still on their way.
    const reached = await unrelayedEvent(25);
    const behind = await unrelayedEvent(15);
    await relayProgress(20);
    await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD });
    expect(await replayOf(reached.eventId, 1)).toBeDefined();
    expect(await replayOf(behind.eventId, 1)).toBeUndefined();
    // Listed all the same: it is overdue.
    expect((await unrelayedEvents({ olderThanMs: THRESHOLD })).map((i) => i.event.eventId)).toContain(
      behind.eventId,
    );
    // No progress for six thresholds: replayed, as a record the relay may never reach.
    await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD, now: inMinutes(16) });
    expect(await replayOf(behind.eventId, 1)).toBeDefined();
  });

  it('keeps a shard before a replay that failed, reports the failure in every run, and goes on once the item is gone', async () => {
    // The API takes bodies up to 64 KB, so a real event is far from DynamoDB's 400 KB item limit:
    // an item this large stands in for a table that refuses the sweep's writes (it throttles).
    const refused = await unrelayedEvent(10, { eventId: inShard(0), data: await dataTheReplayOutgrows() });
    const sameShard = await unrelayedEvent(9, { eventId: inShard(0) });
    const otherShard = await unrelayedEvent(9, { eventId: inShard(1) });
    await relayProgress();

    const first = await sweepUnrelayedOutbox({ olderThanMs: THRESHOLD, pageSize: 1 });
    expect(first).toEqual({ overdue: 2, replayed: 1, failed: 1 });
    expect(await replayOf(refused.eventId, 1)).toBeUndefined();
    // The failed shard waits for the next run; the others are swept.
    expect(await replayOf(sameShard.eventId, 1)).toBeUndefined();
    expect(await replayOf(otherShard.eventId, 1)).toBeDefined();

    // The next run (the timers function, on its schedule, pages of 100) starts again before the
    // failure: the other item of its page is replayed, the failure is published for the alarm.
    expect(await timersRun()).toEqual({
      metrics: { [METRIC.outboxReplays]: 1, [METRIC.outboxReplayFailures]: 1 },
      failed: false,
    });
    expect(await replayOf(sameShard.eventId, 1)).toBeDefined();
    expect((await unrelayedEvents({ olderThanMs: THRESHOLD })).map((i) => i.event.eventId)).toContain(
      refused.eventId,
    );

    // Once the table takes the sweep's writes again (here: the item it could not copy is gone), the
    // next run fails no more.
    await dynamodb().send(
      new DeleteItemCommand({
        TableName: tableName(),
        Key: marshall({ pk: `OUTBOX#${refused.eventId}`, sk: 'EVENT' }),
      }),
    );
    expect(await timersRun()).toEqual({
      metrics: { [METRIC.outboxReplays]: 0, [METRIC.outboxReplayFailures]: 0 },
      failed: false,
    });
  });

  it('counts a sweep that fails as a whole (here with the timers, on a missing table) as a failure, and the run fails', async () => {
    vi.stubEnv('TABLE_NAME', `missing-${randomUUID()}`);
    expect(await timersRun()).toEqual({
      metrics: { [METRIC.outboxReplays]: 0, [METRIC.outboxReplayFailures]: 1 },
      failed: true,
    });
  });

  it("reads as far as the threshold, or the relay's progress less a margin, but at least six thresholds back", () => {
    const now = new Date('2026-11-23T12:00:00.000Z');
    expect(sweepBound(now, THRESHOLD, '2026-11-23T11:59:00.000Z').toISOString()).toBe(
      '2026-11-23T11:55:00.000Z',
    );
    expect(sweepBound(now, THRESHOLD, '2026-11-23T11:50:00.000Z').toISOString()).toBe(
      '2026-11-23T11:49:30.000Z',
    );
    expect(sweepBound(now, THRESHOLD, '2026-11-23T10:00:00.000Z').toISOString()).toBe(
      '2026-11-23T11:30:00.000Z',
    );
    expect(sweepBound(now, THRESHOLD, undefined).toISOString()).toBe('2026-11-23T11:30:00.000Z');
  });

  it('reads relay receipts by when they were written, with how far the relay has got', async () => {
    const before = new Date();
    const ids = [randomUUID(), randomUUID()];
    await writeRelayReceipt([
      { eventId: ids[0] ?? '', onStreamAt: '2026-11-23T11:00:00.000Z' },
      { eventId: ids[1] ?? '', onStreamAt: '2026-11-23T11:00:01.000Z' },
    ]);
    const read = await relayedSince(before);
    expect([...read.eventIds].sort()).toEqual([...ids].sort());
    expect(read.relayedUpTo).toBe('2026-11-23T11:00:01.000Z');
    expect(await relayedSince(inMinutes(1))).toEqual({ eventIds: new Set(), relayedUpTo: undefined });
  });
});
