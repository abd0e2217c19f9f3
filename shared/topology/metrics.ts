import type { DeliveryOutcome } from '../domain/delivery-attempt.js';

/**
 * The service's own CloudWatch metrics: the functions emit them (EMF lines, through
 * shared/observability.ts) and the CDK stack's alarms and dashboard read them. One definition, so a
 * renamed metric cannot leave an alarm watching nothing.
 */
export const METRICS_NAMESPACE = 'MembershipIncidentService';

/** Powertools' `service`: the logs' `service` field and a dimension of every metric. */
export const SERVICE_NAME = 'membership-incident-service';

export const METRIC = {
  /** One per delivery attempt, in total and by `outcome`. */
  deliveryAttempts: 'DeliveryAttempts',
  /** How long the subscriber took to answer (or to time out), for attempts that sent a request. */
  deliveryLatency: 'DeliveryLatency',
  /** From the outbox item's `occurredAt` to its delivery being put on the event bus. */
  relayLag: 'RelayLag',
  /** Requests refused with 429 by the per-token rate limit. */
  rateLimitRefusals: 'RateLimitRefusals',
  /** Tokens the authorizer refused (API Gateway answered 401). */
  authorizerDenials: 'AuthorizerDenials',
  /** Deliveries sent back to the queue, unattempted, because their endpoint was limited (slow or failing). */
  deliveriesDelayed: 'DeliveriesDelayed',
  /** Deliveries whose next attempt is overdue by more than STUCK_DELIVERY_AFTER_SECONDS (timers function, every run). */
  stuckDeliveries: 'StuckDeliveries',
  /** Outbox events the sweep put back on the stream because no relay receipt named them (timers function, every run). */
  outboxReplays: 'OutboxReplays',
  /** Replays the sweep could not write, or 1 for a sweep that failed as a whole: its shard waits for the next run. */
  outboxReplayFailures: 'OutboxReplayFailures',
} as const;

/** Every metric also carries the stage, so that two stages in one account never feed each other's alarms. */
export const STAGE_DIMENSION = 'stage';
/** Set on every function by the stack; the local stack has none. */
export const STAGE_VARIABLE = 'STAGE';
export const OUTCOME_DIMENSION = 'outcome';

/** Whether an attempt's outcome counts against the delivery failure rate: the subscriber did not take it. */
export const FAILED_OUTCOME: Readonly<Record<DeliveryOutcome, boolean>> = {
  succeeded: false,
  retry_scheduled: true,
  failed: true,
  // The subscriber said 410 Gone, or the endpoint was deleted or disabled: nothing of ours went wrong.
  endpoint_disabled: false,
  skipped: false,
};
