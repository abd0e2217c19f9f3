import { recordAttempt } from '../adapters/delivery-log.js';
import { beginAttempt, finishAttempt, noteSkipped } from '../adapters/delivery-records.js';
import {
  clearEndpointFailure,
  disableWebhookEndpoint,
  getWebhookEndpointWithSecret,
  noteEndpointFailure,
} from '../adapters/webhook-endpoint-store.js';
import { type SendResult, sendWebhook } from '../adapters/webhook-sender.js';
import { serviceName } from '../config.js';
import type { DeliveryAttempt, DeliveryOutcome } from '../domain/delivery-attempt.js';
import { DEFAULT_DISABLE_AFTER_HOURS, failedLongEnough } from '../domain/endpoint-health.js';
import { MAX_DELIVERY_ATTEMPTS, MAX_VISIBILITY_SECONDS, nextRetryDelay } from '../domain/retry-schedule.js';
import type { WebhookEndpoint } from '../domain/webhook-endpoint.js';
import { type DeliveryMessage, TEST_EVENT, webhookBody } from '../domain/webhook-events.js';
import { webhookHeaders } from '../domain/webhook-signature.js';
import { logger, MetricUnit, publishMetrics } from '../observability.js';
import { METRIC, OUTCOME_DIMENSION } from '../topology/metrics.js';
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS } from '../topology/timeouts.js';

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

export interface DeliveryOptions {
  /** The automatic schedule's base delays. */
  delays: readonly number[];
  /** `WEBHOOK_DISABLE_AFTER_HOURS`: how long nothing but failures disables the endpoint (`failing`). */
  disableAfterHours?: number;
}

/**
 * One attempt of one delivery: load the endpoint and its secret, sign the exact bytes, POST them,
 * and record the attempt in the delivery log. The caller (the SQS handler) turns the decision
 * into the message's fate: done, retried later, or left for the dead-letter queue.
 *
 * `schedulePosition` is where the attempt stands in its automatic schedule (SQS's receive count:
 * 1 to 6, again from 1 after a redrive); it decides whether a failure is retried. The `attempt`
 * the subscriber sees counts every earlier attempt of the delivery, whatever sent it.
 */
export async function deliverWebhook(
  message: DeliveryMessage,
  schedulePosition: number,
  options: DeliveryOptions | readonly number[],
): Promise<DeliveryDecision> {
  const { delays, disableAfterHours = DEFAULT_DISABLE_AFTER_HOURS } =
    'delays' in options ? options : { delays: options };
  const started = new Date();
  const ids = {
    organisationId: message.organisationId,
    endpointId: message.endpointId,
    deliveryId: message.deliveryId,
    eventId: message.eventId,
    event: message.event,
  };
  const found = await getWebhookEndpointWithSecret(message.organisationId, message.endpointId, started);
  if (!found) {
    await record(
      { ...ids, attempt: schedulePosition, at: started.toISOString(), outcome: 'skipped', latencyMs: 0 },
      'endpoint deleted',
    );
    return { outcome: 'skipped' };
  }
  // A test send goes through to a disabled endpoint: its owner checks the receiver before enabling it.
  if (found.endpoint.disabledAt !== null && message.event !== TEST_EVENT) {
    // Kept with its event, so that enabling the endpoint and a recover send it: nothing is lost.
    const attempt = await noteSkipped(message, started);
    await record(
      { ...ids, attempt, at: started.toISOString(), outcome: 'skipped', latencyMs: 0 },
      'endpoint disabled',
    );
    return { outcome: 'skipped' };
  }

  const attempt = await beginAttempt(message, started);
  const body = Buffer.from(webhookBody(message, attempt), 'utf8');
  const headers = webhookHeaders({
    ...(found.previousSecret === undefined ? {} : { previousSecret: found.previousSecret }),
    secret: found.secret,
    deliveryId: message.deliveryId,
    event: message.event,
    body,
    timestampSeconds: Math.floor(started.getTime() / 1000),
    serviceName: serviceName(),
  });
  const result = await sendWebhook(found.endpoint.url, body, headers);
  const response = responseFields(result);
  const at = started.toISOString();
  const logged = (outcome: DeliveryOutcome, extra: Partial<DeliveryAttempt> = {}) =>
    record({ ...ids, attempt, at, outcome, ...response, ...extra }, undefined, {
      message,
      started,
    });

  if (result.ok) {
    if (found.endpoint.failingSince !== null)
      await clearEndpointFailure(message.organisationId, message.endpointId);
    await logged('succeeded');
    return { outcome: 'succeeded' };
  }
  if (result.statusCode === 410) {
    await disableWebhookEndpoint(message.organisationId, message.endpointId, 'gone');
    await logged('endpoint_disabled');
    return { outcome: 'endpoint_disabled' };
  }
  await disableIfFailingTooLong(found.endpoint, started, disableAfterHours);
  const delay =
    !message.once && schedulePosition < MAX_DELIVERY_ATTEMPTS
      ? nextRetryDelay(
          { attempt: schedulePosition, statusCode: result.statusCode, retryAfter: result.retryAfter },
          { delays },
        )
      : undefined;
  if (delay === undefined) {
    await logged('failed');
    return { outcome: 'failed' };
  }
  const retryInSeconds = Math.min(delay, MAX_RETRY_DELAY_SECONDS);
  const nextAttemptAt = new Date(Date.now() + retryInSeconds * 1000).toISOString();
  await logged('retry_scheduled', { nextAttemptAt });
  return { outcome: 'retry_scheduled', retryInSeconds };
}

/**
 * A failure starts (or continues) the endpoint's failure streak; once nothing but failures has
 * lasted `disableAfterHours`, the endpoint is disabled as `failing` and its later events are
 * logged `skipped`, to be recovered once its owner enables it again.
 */
async function disableIfFailingTooLong(endpoint: WebhookEndpoint, now: Date, disableAfterHours: number) {
  const failingSince =
    endpoint.failingSince ?? (await noteEndpointFailure(endpoint.organisationId, endpoint.id, now));
  if (failedLongEnough(failingSince, now, disableAfterHours)) {
    await disableWebhookEndpoint(endpoint.organisationId, endpoint.id, 'failing', now);
    logger.warn('Webhook endpoint disabled: nothing but failures', {
      endpointId: endpoint.id,
      failingSince,
    });
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
  reason?: string,
  /** For an attempt that was made: its outcome goes on the delivery's record too (what recover selects by). */
  made?: { message: DeliveryMessage; started: Date },
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
    await Promise.all([
      recordAttempt(attempt),
      made ? finishAttempt(made.message, attempt.outcome, made.started) : undefined,
    ]);
  } catch (error) {
    logger.error('The delivery log write failed', {
      error,
      deliveryId: attempt.deliveryId,
      attempt: attempt.attempt,
    });
  }
}
