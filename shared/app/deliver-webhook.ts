import { type LogEntry, recordAttempt } from '../adapters/delivery-log.js';
import { attemptsMadeSoFar } from '../adapters/delivery-records.js';
import { settleEndpointPace, takeInFlightSlot } from '../adapters/endpoint-pace-store.js';
import { clearPendingDelivery, notePendingDelivery } from '../adapters/pending-deliveries.js';
import {
  clearEndpointFailure,
  disableWebhookEndpoint,
  noteEndpointFailure,
} from '../adapters/webhook-endpoint-store.js';
import { type SendResult, sendWebhook } from '../adapters/webhook-sender.js';
import { serviceName } from '../config.js';
import type { DeliveryAttempt, DeliveryOutcome } from '../domain/delivery-attempt.js';
import { DEFAULT_DISABLE_AFTER_HOURS, failedLongEnough } from '../domain/endpoint-health.js';
import { delayWhileLimited, isLimited, isStrike } from '../domain/endpoint-pace.js';
import { MAX_DELIVERY_ATTEMPTS, MAX_VISIBILITY_SECONDS, nextRetryDelay } from '../domain/retry-schedule.js';
import type { WebhookEndpoint } from '../domain/webhook-endpoint.js';
import { type DeliveryMessage, TEST_EVENT, webhookBody } from '../domain/webhook-events.js';
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
  /**
   * Certainly the delivery's first attempt (the relay's message at its first receive): numbered 1
   * without reading the log. Anything else (a retry, a redrive, a redeliver, a recover, a delivery
   * sent back while its endpoint was limited) reads how many attempts the log holds.
   */
  firstAttempt?: boolean;
  /** An earlier receive of this delivery noted it pending (a retry or a delay): clear it at the end. */
  mayBePending?: boolean;
  /** Writes the attempt to the delivery log; a batch gathers its attempts into BatchWriteItems. */
  writeLog?: (entry: LogEntry) => Promise<void>;
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
 * 1 to 6, again from 1 after a redrive, plus the attempts made before a delivery was sent back
 * while its endpoint was limited); it decides whether a failure is retried. The `attempt` the
 * subscriber sees counts every earlier attempt of the delivery, whatever sent it.
 */
export async function deliverWebhook(
  message: DeliveryMessage,
  schedulePosition: number,
  options: DeliveryOptions | readonly number[],
  context: DeliveryContext = {},
): Promise<DeliveryDecision> {
  const { delays, disableAfterHours = DEFAULT_DISABLE_AFTER_HOURS } =
    'delays' in options ? options : { delays: options };
  const lookups = context.lookups ?? DIRECT_LOOKUPS;
  const writeLog = context.writeLog ?? recordAttempt;
  const started = new Date();
  const ids = {
    organisationId: message.organisationId,
    endpointId: message.endpointId,
    deliveryId: message.deliveryId,
    eventId: message.eventId,
    event: message.event,
  };
  const writeEntry = (attempt: DeliveryAttempt, reason?: string) =>
    record({ attempt, event: { occurredAt: message.occurredAt, data: message.data } }, writeLog, reason);
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
  if (!found) {
    await writeEntry(
      { ...ids, attempt: schedulePosition, at: started.toISOString(), outcome: 'skipped', latencyMs: 0 },
      'endpoint deleted',
    );
    return ended({ outcome: 'skipped' });
  }
  // A test send goes through to a disabled endpoint: its owner checks the receiver before enabling it.
  if (found.endpoint.disabledAt !== null && message.event !== TEST_EVENT) {
    // Logged with its event, so that enabling the endpoint and a recover send it: nothing is lost.
    // A skip is no attempt: it carries the number the next real attempt will.
    const attempt = await attemptNumber(message, schedulePosition, context.firstAttempt);
    await writeEntry(
      { ...ids, attempt, at: started.toISOString(), outcome: 'skipped', latencyMs: 0 },
      'endpoint disabled',
    );
    return ended({ outcome: 'skipped' });
  }
  let slot: number | undefined;
  if (isLimited(pace, started.getTime())) {
    slot = await takeInFlightSlot(message.organisationId, message.endpointId);
    if (slot === undefined) return delayWhileEndpointLimited(message, { ...ids, attempt: schedulePosition });
  }

  const attempt = await attemptNumber(message, schedulePosition, context.firstAttempt);
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
  await quietly(
    settleEndpointPace(message.organisationId, message.endpointId, {
      strike: isStrike(result),
      hadStrikes: pace.strikes > 0,
      slot,
    }),
    ids,
  );
  const at = started.toISOString();
  const logged = (outcome: DeliveryOutcome, extra: Partial<DeliveryAttempt> = {}) =>
    writeEntry({ ...ids, attempt, at, outcome, ...response, ...extra });

  if (result.ok) {
    if (found.endpoint.failingSince !== null)
      await clearEndpointFailure(message.organisationId, message.endpointId);
    await logged('succeeded');
    return ended({ outcome: 'succeeded' });
  }
  if (result.statusCode === 410) {
    await disableWebhookEndpoint(message.organisationId, message.endpointId, 'gone');
    await logged('endpoint_disabled');
    return ended({ outcome: 'endpoint_disabled' });
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
    return ended({ outcome: 'failed' });
  }
  const retryInSeconds = Math.min(delay, MAX_RETRY_DELAY_SECONDS);
  const nextAttemptAt = new Date(Date.now() + retryInSeconds * 1000).toISOString();
  await logged('retry_scheduled', { nextAttemptAt });
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
 * seconds instead of holding a worker, and keeps its attempt (it was not tried). The pending note
 * names the attempt by its place in the schedule: the delivery's own count is only read when an
 * attempt begins.
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
 * The attempt's number, counting every earlier attempt of the delivery whatever sent it: the log's
 * count, or SQS's place in the schedule when that is higher (an attempt cut short by a crash before
 * its log write still counts, as SQS counted its receive).
 */
async function attemptNumber(
  message: DeliveryMessage,
  schedulePosition: number,
  firstAttempt = false,
): Promise<number> {
  if (firstAttempt) return 1;
  return Math.max((await attemptsMadeSoFar(message)) + 1, schedulePosition);
}

/**
 * Logs the attempt (ids and outcome only: never the URL, the secret, a signature or the body) and
 * writes it to the delivery log with its event. A log write that fails must not turn a delivered
 * webhook into a retried one, so it is logged and not thrown.
 */
async function record(
  entry: LogEntry,
  writeLog: (entry: LogEntry) => Promise<void>,
  reason?: string,
): Promise<void> {
  const { attempt } = entry;
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
    await writeLog(entry);
  } catch (error) {
    logger.error('The delivery log write failed', {
      error,
      deliveryId: attempt.deliveryId,
      attempt: attempt.attempt,
    });
  }
}
