/**
 * The relay's event source on the table stream: the CDK event source mapping and the local stream
 * poller both read these, so the local pace is the deployed one.
 */
export const RELAY_STREAM = {
  /**
   * Records per relay invocation (GetRecords returns at most 1,000). A larger batch means fewer
   * invocations per record, each reading an organisation's endpoints once and writing one receipt
   * for the batch; 500 outbox items with a few endpoints each stay far inside the relay's
   * 60 s timeout and Lambda's 6 MB event.
   */
  batchSize: 500,
  /**
   * Concurrent relay invocations per shard (1–10). Records of one item keep their order only at 1,
   * and an item's replays must not overtake it, so it stays 1: more shards (more write traffic) is
   * what spreads the relay on AWS.
   */
  parallelizationFactor: 1,
  /** PutEvents calls of one invocation in flight at once (each carries up to ten deliveries). */
  publishConcurrency: 4,
} as const;
