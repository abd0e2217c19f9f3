import { DELIVERY_QUEUE } from '../../shared/topology/queues.js';

/**
 * Every timing goal and load setting of the benchmark, in one place. Tests never assert timings:
 * a loaded CI machine would make them flaky, so goals are reported here, never enforced.
 */
export const LOAD = {
  /** Concurrent keep-alive connections, one request in flight on each. */
  connections: 8,
  /** Both sides at once, before each scenario's measured seconds. */
  warmupSeconds: 2,
  /** Once more before the first scenario: DynamoDB Local's JVM is still compiling its hot paths. */
  firstWarmupSeconds: 4,
  durationSeconds: 8,
  /**
   * The measured seconds of each side are taken in slices, alternating stack and floor (ABBA), so
   * that both see the same background load: on a shared 2-core machine it drifts within seconds.
   */
  sliceSeconds: 2,
} as const;

/**
 * The gateway caches an authorizer decision for a minute, so each scenario's first request runs
 * the authorizer and every later one costs only the rate-limit write. The highest limit an
 * enterprise organisation may have keeps the limiter admitting every request of a run.
 */
export const BENCH_RATE_LIMIT = 100_000;

export const BUNDLE_TARGETS = {
  /** Minified bundle, excluding its source map. */
  maxKiB: 350,
  /** Median time to `await import()` the bundle in a fresh process, run as deployed. */
  maxInitMs: 35,
} as const;

/** Fresh `node` processes per bundle; the median is reported. */
export const INIT_RUNS = 15;

/** Issue 4: from the committed state change to the subscriber's receipt, on the local stack. */
export const WEBHOOK_TARGETS = { p50Ms: 300, p99Ms: 1000 } as const;

export const WEBHOOK_LOAD = {
  /** Declared and delivered one at a time before the measured ones; their figures are dropped. */
  warmupIncidents: 10,
  latencyIncidents: 200,
  /**
   * POST /incidents started at this fixed rate whether or not the earlier webhooks arrived (open
   * loop): a slow delivery then shows as latency instead of slowing the load down.
   */
  incidentsPerSecond: 10,
  /** Events delivered by each side of the throughput comparison, in each round. */
  throughputEvents: 1000,
  /** Rounds of the comparison (the stack, then the floor); the median ratio is reported. */
  throughputRounds: 3,
  /** The floor delivers these first, to its own path of the sink, unmeasured (JIT, first connections). */
  floorWarmupMessages: 100,
  /** As the delivery event source mapping receives: batches of 10, 5 receivers at a time. */
  floorReceivers: DELIVERY_QUEUE.maxConcurrency,
  floorBatchSize: DELIVERY_QUEUE.batchSize,
  /** How long the bench waits for a run's last webhook before it reports the missing ones. */
  receiptTimeoutSeconds: 90,
  /** Incidents declared to come due a little apart (across one timer interval), each alarm timed. */
  deadlineAlarms: 5,
  /** sendWebhook calls to a subscriber that never answers (side by side) and to one that never ends its answer. */
  cutoffRuns: 10,
} as const;

/** Issue 13: a test send reaches a local receiver; a recover keeps up with fresh events. */
export const MANAGED_WEBHOOK_TARGETS = { testSendP50Ms: 300, recoverToFreshRatio: 0.5 } as const;

export const MANAGED_WEBHOOK_LOAD = {
  /** POST /webhooks/{id}/test one at a time, each awaited at the receiver; the warm-up ones are dropped. */
  testWarmup: 5,
  testSends: 50,
  /** Events skipped while their endpoint is disabled, then recovered by one call. */
  recoverDeliveries: 1000,
} as const;

/** Issue 14: the SDK's built client (minified, without types) and one webhook verification. */
export const SDK_TARGETS = { maxKiB: 15, maxVerifyMs: 0.1 } as const;

/** Verifications timed per variant, after as many to warm up. */
export const SDK_VERIFY_RUNS = 20_000;
