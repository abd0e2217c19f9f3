import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { attemptLogBatcher, type LogEntry } from '../../shared/adapters/delivery-log.js';
import { sqs } from '../../shared/adapters/sqs.js';
import { deliverWebhook } from '../../shared/app/deliver-webhook.js';
import { type DeliveryLookups, lookupsForOneBatch } from '../../shared/app/endpoint-lookups.js';
import { requireEnv } from '../../shared/config.js';
import { parseDisableAfterHours } from '../../shared/domain/endpoint-health.js';
import { MAX_DELIVERY_ATTEMPTS, parseRetryDelays } from '../../shared/domain/retry-schedule.js';
import { logger } from '../../shared/observability.js';
import { parseDeliveryMessage } from '../../shared/schemas/delivery-message.js';
import { ATTEMPTS_MADE_ATTRIBUTE } from '../../shared/topology/queues.js';

const queueUrl = requireEnv('DELIVERY_QUEUE_URL');
const delivery = {
  delays: parseRetryDelays(process.env.WEBHOOK_RETRY_DELAYS),
  disableAfterHours: parseDisableAfterHours(process.env.WEBHOOK_DISABLE_AFTER_HOURS),
};

const setVisibility = (record: SQSRecord, seconds: number) =>
  sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );

/** Attempts made before this message was sent: non-zero for a delivery sent back while its endpoint was limited. */
const attemptsMadeBefore = (record: SQSRecord) =>
  Number(record.messageAttributes[ATTEMPTS_MADE_ATTRIBUTE]?.stringValue) || 0;

/**
 * A delivery sent back to the queue, unattempted, as a new message (same body, so the same delivery
 * id) delayed by DelaySeconds. A new message because SQS counts every receive of a message: made
 * invisible instead, the delay would spend one of its six attempts. The attempts made so far go
 * with it; the original is then deleted.
 */
const sendBack = (record: SQSRecord, attemptsMade: number, delaySeconds: number) =>
  sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: record.body,
      DelaySeconds: delaySeconds,
      MessageAttributes: {
        [ATTEMPTS_MADE_ATTRIBUTE]: { DataType: 'Number', StringValue: String(attemptsMade) },
      },
    }),
  );

/**
 * True when the message is finished with (the event source mapping then deletes it). A retry is
 * the message made invisible for the backoff delay and reported as failed; after the last attempt
 * it is made visible at once, so that the next receive exceeds maxReceiveCount and SQS moves it to
 * the dead-letter queue. The schedule position is the attempts made before this message plus SQS's
 * receive count; a message sent back reaches its last attempt before maxReceiveCount, so its
 * further receives only release it at once, without a POST, until SQS moves it.
 */
async function handleRecord(
  record: SQSRecord,
  lookups: DeliveryLookups,
  writeLog: (entry: LogEntry) => Promise<void>,
): Promise<boolean> {
  const message = parseDeliveryMessage(record.body);
  if (!message) {
    // Retrying cannot repair it; keeping it would only walk it to the dead-letter queue.
    logger.error('Malformed delivery message dropped', { messageId: record.messageId });
    return true;
  }
  const schedulePosition =
    attemptsMadeBefore(record) + (Number(record.attributes.ApproximateReceiveCount) || 1);
  if (schedulePosition > MAX_DELIVERY_ATTEMPTS) {
    await setVisibility(record, 0);
    return false;
  }
  const sentBack = record.messageAttributes[ATTEMPTS_MADE_ATTRIBUTE] !== undefined;
  const decision = await deliverWebhook(message, schedulePosition, delivery, {
    lookups,
    writeLog,
    mayBePending: schedulePosition > 1 || sentBack,
    // The relay's message at its first receive; a redeliver, a recover or a redrive is marked.
    firstAttempt: schedulePosition === 1 && !sentBack && !message.once && !message.resent,
  });
  if (decision.outcome === 'delayed') {
    await sendBack(record, schedulePosition - 1, decision.delaySeconds ?? 0);
    return true;
  }
  // A test send or a redeliver is one attempt, logged: a failure is final, never retried.
  if (message.once) return true;
  if (decision.outcome === 'retry_scheduled') await setVisibility(record, decision.retryInSeconds ?? 0);
  else if (decision.outcome === 'failed') await setVisibility(record, 0);
  return decision.outcome !== 'retry_scheduled' && decision.outcome !== 'failed';
}

/** Records are delivered side by side: one slow endpoint does not hold up the others of the batch. */
async function deliverBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const lookups = lookupsForOneBatch();
  const writeLog = attemptLogBatcher();
  const results = await Promise.allSettled(
    event.Records.map((record) => handleRecord(record, lookups, writeLog)),
  );
  const batchItemFailures: SQSBatchItemFailure[] = [];
  results.forEach((result, index) => {
    const record = event.Records[index];
    if (!record || (result.status === 'fulfilled' && result.value)) return;
    if (result.status === 'rejected') {
      // Unexpected (DynamoDB, KMS, SQS): the message returns after the queue's visibility timeout.
      logger.error('Delivery failed unexpectedly', { error: result.reason, messageId: record.messageId });
    }
    batchItemFailures.push({ itemIdentifier: record.messageId });
  });
  return { batchItemFailures };
}

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(injectLambdaContext(logger))
  .handler(deliverBatch);
