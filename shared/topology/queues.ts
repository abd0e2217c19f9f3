import { MAX_DELIVERY_ATTEMPTS } from '../domain/retry-schedule.js';
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS } from './timeouts.js';

/**
 * The one definition of the webhook delivery queues: the CDK stack and the local SQS emulator are
 * both built from it.
 */
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
  /**
   * Bounds concurrent deliveries; throttled invocations would otherwise count receives (attempts).
   * A limited endpoint holds at most 2 invocations (ENDPOINT_PACE), so four slow endpoints at once
   * still leave two for everyone else.
   */
  maxConcurrency: 10,
} as const;

/**
 * Message attribute of a delivery sent back to the queue while its endpoint was limited: the
 * attempts it had made before. Its attempt number is this plus the new message's receive count; a
 * redrive from the dead-letter queue drops it, so that attempts count from 1 again.
 */
export const ATTEMPTS_MADE_ATTRIBUTE = 'attemptsMade';
