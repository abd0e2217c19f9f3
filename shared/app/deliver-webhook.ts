import { recordAttempt } from '../adapters/delivery-log.js';
import { settleEndpointPace, takeInFlightSlot } from '../adapters/endpoint-pace-store.js';
import { clearPendingDelivery, notePendingDelivery } from '../adapters/pending-deliveries.js';
import { disableWebhookEndpoint } from '../adapters/webhook-endpoint-store.js';
import { type SendResult, sendWebhook } from '../adapters/webhook-sender.js';
import { serviceName } from '../config.js';
import type { DeliveryAttempt, DeliveryOutcome } from '../domain/delivery-attempt.js';
import { delayWhileLimited, isLimited, isStrike } from '../domain/endpoint-pace.js';
import { MAX_DELIVERY_ATTEMPTS, MAX_VISIBILITY_SECONDS, nextRetryDelay } from '../domain/retry-schedule.js';
import { type DeliveryMessage, webhookBody } from '../domain/webhook-events.js';
import { webhookHeaders } from '../domain/webhook-signature.js';
import { logger, MetricUnit, publishMetrics } from '../observability.js';
import { METRIC, OUTCOME_DIMENSION } from '../topology/metrics.js';
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS } from '../topology/timeouts.js';
import { type DeliveryLookups, DIRECT_LOOKUPS } from './endpoint-lookups.js';

/**
 * SQS allows 12 h of invisibility counted from the receive, not from ChangeMessageVisibility; the
 * receive happened before this invocation, which lasts at most the function timeout.
 */
const MAX_RETRY_DELAY_SECONDS = MAX_VISIBILITY_SECONDS - 2 * DELIVERY_FUNCTION_TIMEOUT_SECONDS;

export interface DeliveryDecision {
  /** `delayed`: no attempt was made (its endpoint is limited and every slot is held). */
  outcome: DeliveryOutcome | 'delayed';
  /** For `retry_scheduled`: seconds until the next attempt (the message's new visibility timeout). */
  retryInSeconds?: number;
  /** For `delayed`: seconds until the delivery is taken again; it has spent no attempt. */
  delaySeconds?: number;
}

export interface DeliveryContext {
  lookups?: DeliveryLookups;
  /** An earlier receive of this delivery noted it pending (a retry or a delay): clear it at the end. */
  mayBePending?: boolean;
  /** Writes the attempt to the delivery log; a batch gathers its attempts into BatchWriteItems. */
  writeLog?: (attempt: DeliveryAttempt) => Promise<void>;
}

/**
 * One attempt of one delivery: load the endpoint and its secret, sign the exact bytes, POST them,
 * and record the attempt in the delivery log. The caller (the SQS handler) turns the decision
 * into the message's fate: done, retried later, or left for the dead-letter queue.
 */
export async function deliverWebhook(
  message: DeliveryMessage,
  attempt: number,
  delays: readonly number[],
  context: DeliveryContext = {},
): Promise<DeliveryDecision> {
  const lookups = context.lookups ?? DIRECT_LOOKUPS;
  const log = (attempt: DeliveryAttempt, reason?: string) =>
    record(attempt, reason, context.writeLog ?? recordAttempt);
  const started = new Date();
  const ids = {
    organisationId: message.organisationId,
    endpointId: message.endpointId,
    deliveryId: message.deliveryId,
    eventId: message.eventId,
    event: message.event,
    attempt,
  };
  const [found, pace] = await Promise.all([
    lookups.endpoint(message.organisationId, message.endpointId),
    lookups.pace(message.organisationId, message.endpointId),
  ]);
  const ended = async (decision: DeliveryDecision) => {
    if (context.mayBePending)
      await quietly(
        clearPendingDelivery(message.organisationId, message.endpointId, message.deliveryId),
        ids,
      );
    return decision;
  };
  if (!found || found.endpoint.disabledAt !== null) {
    const reason = found ? 'endpoint disabled' : 'endpoint deleted';
    await log({ ...ids, at: started.toISOString(), outcome: 'skipped', latencyMs: 0 }, reason);
    return ended({ outcome: 'skipped' });
  }
  let slot: number | undefined;
  if (isLimited(pace, started.getTime())) {
    slot = await takeInFlightSlot(message.organisationId, message.endpointId);
    if (slot === undefined) return delayWhileEndpointLimited(message, ids);
  }

  const body = Buffer.from(webhookBody(message, attempt), 'utf8');
  const headers = webhookHeaders({
    secret: found.secret,
    deliveryId: message.deliveryId,
    event: message.event,
    body,
    timestampSeconds: Math.floor(started.getTime() / 1000),
    serviceName: serviceName(),
  });
  const result = await sendWebhook(found.endpoint.url, body, headers);
  const response = responseFields(result);
  await quietly(
    settleEndpointPace(message.organisationId, message.endpointId, {
      strike: isStrike(result),
      hadStrikes: pace.strikes > 0,
      slot,
    }),
    ids,
  );

  if (result.ok) {
    await log({ ...ids, at: started.toISOString(), outcome: 'succeeded', ...response });
    return ended({ outcome: 'succeeded' });
  }
  if (result.statusCode === 410) {
    await disableWebhookEndpoint(
      message.organisationId,
      message.endpointId,
      'The endpoint answered 410 Gone.',
    );
    await log({ ...ids, at: started.toISOString(), outcome: 'endpoint_disabled', ...response });
    return ended({ outcome: 'endpoint_disabled' });
  }
  const delay =
    attempt < MAX_DELIVERY_ATTEMPTS
      ? nextRetryDelay({ attempt, statusCode: result.statusCode, retryAfter: result.retryAfter }, { delays })
      : undefined;
  if (delay === undefined) {
    await log({ ...ids, at: started.toISOString(), outcome: 'failed', ...response });
    return ended({ outcome: 'failed' });
  }
  const retryInSeconds = Math.min(delay, MAX_RETRY_DELAY_SECONDS);
  const nextAttemptAt = new Date(Date.now() + retryInSeconds * 1000).toISOString();
  await log({ ...ids, at: started.toISOString(), outcome: 'retry_scheduled', ...response, nextAttemptAt });
  await quietly(
    notePendingDelivery({
      ...pendingOf(message),
      nextAttempt: attempt + 1,
      nextAttemptAt,
      why: 'retry_scheduled',
    }),
    ids,
  );
  return { outcome: 'retry_scheduled', retryInSeconds };
}

/**
 * The endpoint is limited and every slot is held: the delivery goes back to the queue for a few
 * seconds instead of holding a worker, and keeps its attempt (it was not tried).
 */
async function delayWhileEndpointLimited(
  message: DeliveryMessage,
  ids: { attempt: number } & Record<string, unknown>,
): Promise<DeliveryDecision> {
  const delaySeconds = delayWhileLimited();
  const nextAttemptAt = new Date(Date.now() + delaySeconds * 1000).toISOString();
  logger.info('Endpoint limited: delivery sent back to the queue', { ...ids, delaySeconds });
  publishMetrics((metrics) => metrics.addMetric(METRIC.deliveriesDelayed, MetricUnit.Count, 1));
  await quietly(
    notePendingDelivery({
      ...pendingOf(message),
      nextAttempt: ids.attempt,
      nextAttemptAt,
      why: 'endpoint_limited',
    }),
    ids,
  );
  return { outcome: 'delayed', delaySeconds };
}

const pendingOf = (message: DeliveryMessage) => ({
  organisationId: message.organisationId,
  endpointId: message.endpointId,
  deliveryId: message.deliveryId,
  eventId: message.eventId,
  event: message.event,
});

/**
 * Book-keeping beside the delivery (pace, pending note): a failed write must not turn a delivered
 * webhook into a retried one, so it is logged and not thrown.
 */
async function quietly(write: Promise<unknown>, ids: Record<string, unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    logger.error('A delivery book-keeping write failed', { error, deliveryId: ids.deliveryId });
  }
}

function responseFields(
  result: SendResult,
): Pick<DeliveryAttempt, 'statusCode' | 'errorClass' | 'latencyMs' | 'responseExcerpt'> {
  return {
    statusCode: result.statusCode,
    errorClass: result.errorClass,
    latencyMs: result.latencyMs,
    responseExcerpt: result.responseExcerpt === '' ? undefined : result.responseExcerpt,
  };
}

/**
 * Logs the attempt (ids and outcome only: never the URL, the secret, a signature or the body) and
 * writes it to the delivery log. A log write that fails must not turn a delivered webhook into a
 * retried one, so it is logged and not thrown.
 */
async function record(
  attempt: DeliveryAttempt,
  reason: string | undefined,
  writeLog: (attempt: DeliveryAttempt) => Promise<void>,
): Promise<void> {
  const { responseExcerpt, ...fields } = attempt;
  const level = attempt.outcome === 'failed' ? 'warn' : 'info';
  logger[level]('Webhook delivery attempt', { ...fields, ...(reason ? { reason } : {}) });
  publishMetrics(
    (metrics) => {
      metrics.addMetric(METRIC.deliveryAttempts, MetricUnit.Count, 1);
      if (attempt.outcome !== 'skipped') {
        metrics.addMetric(METRIC.deliveryLatency, MetricUnit.Milliseconds, attempt.latencyMs);
      }
    },
    { [OUTCOME_DIMENSION]: attempt.outcome },
  );
  try {
    await writeLog(attempt);
  } catch (error) {
    logger.error('The delivery log write failed', {
      error,
      deliveryId: attempt.deliveryId,
      attempt: attempt.attempt,
    });
  }
}
