import {
  countOverduePendingDeliveries,
  overduePendingDeliveries,
  type PendingDelivery,
} from '../adapters/pending-deliveries.js';

/**
 * How far past its due time a delivery's next attempt may be before it counts as stuck. A retry
 * comes back when its visibility timeout ends, a delayed one when its DelaySeconds end, a few
 * seconds late at most; a message whose visibility change was lost comes back after the queue's
 * visibility timeout (3 minutes). Past 5 minutes, something else went wrong (the message is gone, a
 * worker keeps dying on it). `STUCK_DELIVERY_AFTER_SECONDS` overrides it.
 */
export function stuckDeliveryAfterMs(): number {
  const seconds = Number(process.env.STUCK_DELIVERY_AFTER_SECONDS);
  return (
    (Number.isFinite(seconds) && seconds >= 0 && process.env.STUCK_DELIVERY_AFTER_SECONDS ? seconds : 300) *
    1000
  );
}

export interface StuckDelivery extends PendingDelivery {
  /** Whole seconds since the next attempt was due. */
  overdueSeconds: number;
}

/** Deliveries whose next attempt is overdue by more than `olderThanMs` at `now`: what `mis deliveries stuck` lists. */
export async function stuckDeliveries(
  options: { now?: Date; olderThanMs?: number; limit?: number } = {},
): Promise<StuckDelivery[]> {
  const now = options.now ?? new Date();
  const before = new Date(now.getTime() - (options.olderThanMs ?? stuckDeliveryAfterMs()));
  const pending = await overduePendingDeliveries(before, options.limit);
  return pending.map((p) => ({
    ...p,
    overdueSeconds: Math.floor((now.getTime() - Date.parse(p.nextAttemptAt)) / 1000),
  }));
}

/** How many are stuck: the timers function publishes it as the StuckDeliveries metric every run. */
export async function countStuckDeliveries(now = new Date()): Promise<number> {
  return countOverduePendingDeliveries(new Date(now.getTime() - stuckDeliveryAfterMs()));
}
