import { OUTBOX_SHARDS, type OutboxItem, outboxPages, putReplay } from '../adapters/outbox.js';
import { readSweepCheckpoint, saveSweepCheckpoint } from '../adapters/outbox-sweep-checkpoint.js';
import { relayedSince } from '../adapters/relay-receipts.js';
import { logger } from '../observability.js';

/**
 * How long an outbox item may go without a relay receipt before the sweep puts it back on the
 * stream. The relay writes its receipt within seconds; this is well past a relay retrying a failing
 * batch for a while, and well within the stream's 24 hours. `OUTBOX_SWEEP_AFTER_SECONDS` overrides it.
 */
export function outboxSweepAfterMs(): number {
  const seconds = Number(process.env.OUTBOX_SWEEP_AFTER_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 300) * 1000;
}

/** Where the first sweep (no checkpoint yet) starts reading: the stream's retention back. */
const FIRST_SWEEP_LOOKBACK_MS = 24 * 3600_000;
/**
 * A receipt is written after the item it names was put on the stream, but by another function's
 * clock: receipts are read from this much before the oldest item in question.
 */
const CLOCK_MARGIN_MS = 60_000;
/** How far before its checkpoint each run reads a shard again. */
const INDEX_LAG_MARGIN_MS = 60_000;
/**
 * The stream gives a shard's records in commit order, and a copy's time is taken just before its
 * commit: an item committed this much before the newest copy the relay has put on the bus may still
 * be on its way through the stream.
 */
const COMMIT_ORDER_MARGIN_MS = 30_000;
/**
 * With no receipt past an item (the relay idle, stuck on a poison record, or failing) the sweep
 * still replays it, this many thresholds after it was put on the stream (30 minutes by default).
 */
export const NO_PROGRESS_THRESHOLDS = 6;
/** The timers function runs every minute: an unrelayed event's newest copy is never much older than the threshold plus this. */
const SWEEP_PERIOD_MARGIN_MS = 2 * 60_000;

export interface OutboxSweep {
  /** Outbox items past the threshold that no receipt names. */
  overdue: number;
  replayed: number;
  failed: number;
}

/** An event not relayed yet: its newest copy on the stream, and how many replays it has had. */
export type UnrelayedEvent = OutboxItem;

/**
 * Events committed at least `olderThanMs` before `now` that no relay receipt names: what `mis
 * outbox overdue` lists. An event stays unrelayed only while the sweep keeps replaying it, so its
 * newest copy is recent: the listing reads from the sweep's checkpoint (or the threshold and a
 * sweep period back, if that is earlier) to now, and shows each event once, by its newest copy.
 */
export async function unrelayedEvents(
  options: { now?: Date; olderThanMs?: number; limit?: number } = {},
): Promise<UnrelayedEvent[]> {
  const now = options.now ?? new Date();
  const committedBefore = now.getTime() - (options.olderThanMs ?? outboxSweepAfterMs());
  const checkpoint = await readSweepCheckpoint();
  const recent = now.getTime() - outboxSweepAfterMs() - SWEEP_PERIOD_MARGIN_MS;
  const swept = checkpoint?.sweptUntil.map(Date.parse) ?? [now.getTime() - FIRST_SWEEP_LOOKBACK_MS];
  const from = new Date(Math.min(recent, ...swept));
  const { eventIds: relayed } = await relayedSince(new Date(from.getTime() - CLOCK_MARGIN_MS));
  const newest = new Map<string, UnrelayedEvent>();
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
    for await (const page of outboxPages(shard, from, now, 100)) {
      for (const item of page) {
        const { eventId, occurredAt } = item.event;
        if (relayed.has(eventId) || Date.parse(occurredAt) > committedBefore) continue;
        if ((newest.get(eventId)?.replays ?? -1) < item.replays) newest.set(eventId, item);
      }
    }
  }
  return [...newest.values()]
    .sort((a, b) => a.event.occurredAt.localeCompare(b.event.occurredAt))
    .slice(0, options.limit ?? 1000);
}

/**
 * The outbox item, not the stream record, is the source of truth: the sweep reads each shard of
 * the outbox index forward from its checkpoint, and puts every item no relay receipt names back on
 * the stream as a replay (a record the stream lost, or one a failing batch holds back). Deliveries
 * keep their ids, so a relay that also gets the original through causes a duplicate the subscriber
 * drops, never a loss. A shard's checkpoint moves past a page only once every replay of the page is
 * written, so a failure or the end of the run's time loses nothing; a failed replay is counted
 * (`failed`, which the timers function publishes for its alarm) and its shard tried again next run.
 *
 * An item the relay has not reached yet is only late: replaying it would add to the backlog that
 * holds it back (and to the subscribers' duplicates), so the sweep stops short of the relay's
 * progress (`sweepBound`).
 */
export async function sweepUnrelayedOutbox(
  options: { now?: Date; olderThanMs?: number; pageSize?: number; outOfTime?: () => boolean } = {},
): Promise<OutboxSweep> {
  const now = options.now ?? new Date();
  const thresholdMs = options.olderThanMs ?? outboxSweepAfterMs();
  const checkpoint = await readSweepCheckpoint();
  const firstFrom = new Date(now.getTime() - thresholdMs - FIRST_SWEEP_LOOKBACK_MS).toISOString();
  const sweptUntil = Array.from(
    { length: OUTBOX_SHARDS },
    (_, shard) => checkpoint?.sweptUntil[shard] ?? firstFrom,
  );
  const oldest = Math.min(...sweptUntil.map(Date.parse));
  const { eventIds: relayed, relayedUpTo } = await relayedSince(
    new Date(oldest - INDEX_LAG_MARGIN_MS - CLOCK_MARGIN_MS),
  );
  const until = sweepBound(now, thresholdMs, relayedUpTo);
  const sweep: OutboxSweep = { overdue: 0, replayed: 0, failed: 0 };
  shards: for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
    const swept = sweptUntil[shard] ?? until.toISOString();
    // Read again a little before the checkpoint: an index entry that showed up late (a global
    // secondary index is eventually consistent) is found all the same; a replay is written once.
    const from = new Date(Date.parse(swept) - INDEX_LAG_MARGIN_MS);
    for await (const page of outboxPages(shard, from, until, options.pageSize ?? 100)) {
      const unrelayed = page.filter((item) => !relayed.has(item.event.eventId));
      sweep.overdue += unrelayed.filter((item) => item.onStreamAt > swept).length;
      // A failed replay (the table throttles or is unreachable) ends the shard's run: the next run
      // goes on from before this page, and reads no more than a run does when nothing fails.
      const failed = await replayAll(unrelayed, sweep);
      if (failed) continue shards;
      // One millisecond short of the page's last item: another item of the same instant may start
      // the next page. Reading it again is harmless (its replay is written once).
      const last = page.at(-1)?.onStreamAt;
      const next = last && new Date(Date.parse(last) - 1).toISOString();
      if (next && next > (sweptUntil[shard] ?? '')) sweptUntil[shard] = next;
      if (options.outOfTime?.()) break shards;
    }
    if (until.toISOString() > (sweptUntil[shard] ?? '')) sweptUntil[shard] = until.toISOString();
  }
  await saveSweepCheckpoint(sweptUntil, checkpoint);
  return sweep;
}

/**
 * How far the sweep reads: items put on the stream at least the threshold ago, and no later than
 * the relay's progress (less the commit-order margin); but never less than the no-progress limit,
 * so that a record the relay can never reach is replayed all the same.
 */
export function sweepBound(now: Date, thresholdMs: number, relayedUpTo: string | undefined): Date {
  const overdue = now.getTime() - thresholdMs;
  const noProgress = now.getTime() - thresholdMs * NO_PROGRESS_THRESHOLDS;
  const behindRelay =
    relayedUpTo === undefined ? noProgress : Date.parse(relayedUpTo) - COMMIT_ORDER_MARGIN_MS;
  return new Date(Math.min(overdue, Math.max(behindRelay, noProgress)));
}

/** Replays the items side by side (a replay written already is left as it is); returns whether any failed. */
async function replayAll(items: OutboxItem[], sweep: OutboxSweep): Promise<boolean> {
  const results = await Promise.allSettled(items.map((item) => putReplay(item, new Date())));
  let failed = false;
  results.forEach((result, index) => {
    const item = items[index];
    if (!item) return;
    const { eventId, event, organisationId } = item.event;
    if (result.status === 'fulfilled' && result.value) {
      sweep.replayed += 1;
      logger.warn('Outbox item unrelayed past the threshold: put back on the stream', {
        eventId,
        event,
        organisationId,
        onStreamSince: item.onStreamAt,
        replay: item.replays + 1,
      });
    } else if (result.status === 'rejected') {
      // The shard's checkpoint stays before this page.
      failed = true;
      sweep.failed += 1;
      logger.error('Outbox item not replayed', {
        eventId,
        replay: item.replays + 1,
        error: result.reason,
      });
    }
  });
  return failed;
}
