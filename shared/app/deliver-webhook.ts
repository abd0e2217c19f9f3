import { recordAttempt } from '../adapters/delivery-log.js';
import { disableWebhookEndpoint, getWebhookEndpointWithSecret } from '../adapters/webhook-endpoint-store.js';
import { type SendResult, sendWebhook } from '../adapters/webhook-sender.js';
import { serviceName } from '../config.js';
import type { DeliveryAttempt, DeliveryOutcome } from '../domain/delivery-attempt.js';
import { MAX_DELIVERY_ATTEMPTS, MAX_VISIBILITY_SECONDS, nextRetryDelay } from '../domain/retry-schedule.js';
import { type DeliveryMessage, webhookBody } from '../domain/webhook-events.js';
import { webhookHeaders } from '../domain/webhook-signature.js';
import { logger, MetricUnit, publishMetrics } from '../observability.js';
import { METRIC, OUTCOME_DIMENSION } from '../topology/metrics.js';
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS } from '../topology/timeouts.js';
import type { EndpointLookup } from './endpoint-lookups.js';

/**
 * SQS allows 12 h of invisibility counted from the receive, not from ChangeMessageVisibility; the
 * receive happened before this invocation, which lasts at most the function timeout.
 */
const MAX_RETRY_DELAY_SECONDS = MAX_VISIBILITY_SECONDS - 2 * DELIVERY_FUNCTION_TIMEOUT_SECONDS;

export interface DeliveryDecision {
  outcome: DeliveryOutcome;
  /** For `retry_scheduled`: seconds until the next attempt (the message's new visibility timeout). */
  retryInSeconds?: number;
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
  lookupEndpoint: EndpointLookup = getWebhookEndpointWithSecret,
): Promise<DeliveryDecision> {
  const started = new Date();
  const ids = {
    organisationId: message.organisationId,
    endpointId: message.endpointId,
    deliveryId: message.deliveryId,
    eventId: message.eventId,
    event: message.event,
    attempt,
  };
  const found = await lookupEndpoint(message.organisationId, message.endpointId);
  if (!found || found.endpoint.disabledAt !== null) {
    const reason = found ? 'endpoint disabled' : 'endpoint deleted';
    await record({ ...ids, at: started.toISOString(), outcome: 'skipped', latencyMs: 0 }, reason);
    return { outcome: 'skipped' };
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

  if (result.ok) {
    await record({ ...ids, at: started.toISOString(), outcome: 'succeeded', ...response });
    return { outcome: 'succeeded' };
  }
  if (result.statusCode === 410) {
    await disableWebhookEndpoint(
      message.organisationId,
      message.endpointId,
      'The endpoint answered 410 Gone.',
    );
    await record({ ...ids, at: started.toISOString(), outcome: 'endpoint_disabled', ...response });
    return { outcome: 'endpoint_disabled' };
  }
  const delay =
    attempt < MAX_DELIVERY_ATTEMPTS
      ? nextRetryDelay({ attempt, statusCode: result.statusCode, retryAfter: result.retryAfter }, { delays })
      : undefined;
  if (delay === undefined) {
    await record({ ...ids, at: started.toISOString(), outcome: 'failed', ...response });
    return { outcome: 'failed' };
  }
  const retryInSeconds = Math.min(delay, MAX_RETRY_DELAY_SECONDS);
  const nextAttemptAt = new Date(Date.now() + retryInSeconds * 1000).toISOString();
  await record({ ...ids, at: started.toISOString(), outcome: 'retry_scheduled', ...response, nextAttemptAt });
  return { outcome: 'retry_scheduled', retryInSeconds };
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
async function record(attempt: DeliveryAttempt, reason?: string): Promise<void> {
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
    await recordAttempt(attempt);
  } catch (error) {
    logger.error('The delivery log write failed', {
      error,
      deliveryId: attempt.deliveryId,
      attempt: attempt.attempt,
    });
  }
}
