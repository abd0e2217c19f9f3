import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { dynamodb, tableName } from '../../shared/adapters/dynamodb.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { relayedSince, writeRelayReceipt } from '../../shared/adapters/relay-receipts.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { sweepBound, sweepUnrelayedOutbox, unrelayedEvents } from '../../shared/app/sweep-outbox.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
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

/** An outbox item committed `minutesAgo`, as a write's transaction commits it, that no relay receipt names. */
async function unrelayedEvent(minutesAgo: number) {
  const event = newDomainEvent(
    'member.created',
    randomUUID(),
    { member: { id: randomUUID() } },
    new Date(Date.now() - minutesAgo * MINUTE),
  );
  await commitTransaction([outboxWrite(event)]);
  return event;
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
    const events = await Promise.all([12, 11, 10, 9].map(unrelayedEvent));
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
