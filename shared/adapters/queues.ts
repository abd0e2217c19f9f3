/**
 * The one definition of the webhook delivery queues: the CDK stack and the local SQS emulator are
 * both built from it.
 */
/** 10 s per POST, a batch's POSTs run side by side, plus room for the delivery log writes. */
export const DELIVERY_FUNCTION_TIMEOUT_SECONDS = 30;

/** Six attempts in all ("retried up to five times"): SQS moves the message on at the seventh receive. */
export const MAX_DELIVERY_ATTEMPTS = 6;

export const DELIVERY_QUEUE = {
  name: 'webhook-deliveries',
  deadLetterName: 'webhook-deliveries-dlq',
  /** AWS asks for at least six times the function timeout on a queue that feeds a Lambda. */
  visibilityTimeoutSeconds: 6 * DELIVERY_FUNCTION_TIMEOUT_SECONDS,
  maxReceiveCount: MAX_DELIVERY_ATTEMPTS,
  /** Longer than the whole retry schedule (about 6.5 h) with a wide margin. */
  retentionSeconds: 4 * 24 * 3600,
  /** A message keeps its first enqueue time in the DLQ, so the DLQ must keep it longer than the queue. */
  deadLetterRetentionSeconds: 14 * 24 * 3600,
  batchSize: 10,
  /** Bounds concurrent deliveries; throttled invocations would otherwise count receives (attempts). */
  maxConcurrency: 5,
} as const;
