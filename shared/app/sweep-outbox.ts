import { outboxReplayWrites, type UnrelayedOutboxItem, unrelayedOutboxPages } from '../adapters/outbox.js';
import { commitTransaction } from '../adapters/transaction.js';
import { logger } from '../observability.js';

/**
 * How long an outbox item may stay unrelayed before the sweep puts it back on the stream. The
 * relay marks an item within seconds; this is well past a relay retrying a failing batch for a
 * while, and well within the stream's 24 hours. `OUTBOX_SWEEP_AFTER_SECONDS` overrides it.
 */
export function outboxSweepAfterMs(): number {
  const seconds = Number(process.env.OUTBOX_SWEEP_AFTER_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 300) * 1000;
}

export interface OutboxSweep {
  /** Outbox items unrelayed for longer than the threshold. */
  overdue: number;
  replayed: number;
  failed: number;
}

/** The outbox items unrelayed for longer than `olderThanMs` at `now`: what `mis outbox overdue` lists. */
export async function overdueOutboxItems(
  options: { now?: Date; olderThanMs?: number; limit?: number } = {},
): Promise<UnrelayedOutboxItem[]> {
  const before = new Date(
    (options.now ?? new Date()).getTime() - (options.olderThanMs ?? outboxSweepAfterMs()),
  );
  const found: UnrelayedOutboxItem[] = [];
  for await (const page of unrelayedOutboxPages(before, 100)) {
    found.push(...page);
    if (found.length >= (options.limit ?? 1000)) break;
  }
  return found;
}

/**
 * The outbox item, not the stream record, is the source of truth: every item the relay has not
 * marked within the threshold (a record the stream lost or that a failing batch holds back) is put
 * back on the stream as a replay. Deliveries keep their ids, so a relay that also gets the
 * original through causes a duplicate the subscriber drops, never a loss.
 */
export async function sweepUnrelayedOutbox(
  options: { now?: Date; olderThanMs?: number; pageSize?: number; outOfTime?: () => boolean } = {},
): Promise<OutboxSweep> {
  const now = options.now ?? new Date();
  const before = new Date(now.getTime() - (options.olderThanMs ?? outboxSweepAfterMs()));
  const sweep: OutboxSweep = { overdue: 0, replayed: 0, failed: 0 };
  for await (const page of unrelayedOutboxPages(before, options.pageSize ?? 25)) {
    sweep.overdue += page.length;
    const results = await Promise.allSettled(
      page.map((item) => commitTransaction(outboxReplayWrites(item, new Date()))),
    );
    results.forEach((result, index) => {
      const item = page[index];
      if (!item) return;
      if (result.status === 'fulfilled') {
        sweep.replayed += 1;
        logger.warn('Outbox item unrelayed past the threshold: put back on the stream', {
          eventId: item.event.eventId,
          event: item.event.event,
          organisationId: item.event.organisationId,
          pendingSince: item.pendingSince,
          replay: item.replays + 1,
        });
      } else {
        // Marked relayed meanwhile (the condition failed), or the table is unreachable: next run.
        sweep.failed += 1;
        logger.info('Outbox item not replayed', { eventId: item.event.eventId, error: result.reason });
      }
    });
    if (options.outOfTime?.()) break;
  }
  return sweep;
}
