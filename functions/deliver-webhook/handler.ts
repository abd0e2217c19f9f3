import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { sqs } from '../../shared/adapters/sqs.js';
import { deliverWebhook } from '../../shared/app/deliver-webhook.js';
import { type EndpointLookup, endpointLookupsForOneBatch } from '../../shared/app/endpoint-lookups.js';
import { requireEnv } from '../../shared/config.js';
import { parseRetryDelays } from '../../shared/domain/retry-schedule.js';
import { logger } from '../../shared/observability.js';
import { parseDeliveryMessage } from '../../shared/schemas/delivery-message.js';

const queueUrl = requireEnv('DELIVERY_QUEUE_URL');
const retryDelays = parseRetryDelays(process.env.WEBHOOK_RETRY_DELAYS);

const setVisibility = (record: SQSRecord, seconds: number) =>
  sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );

/**
 * True when the message is finished with (the event source mapping then deletes it). A retry is
 * the message made invisible for the backoff delay and reported as failed; after the last attempt
 * it is made visible at once, so that the next receive exceeds maxReceiveCount and SQS moves it to
 * the dead-letter queue. `attempt` is SQS's receive count.
 */
async function handleRecord(record: SQSRecord, lookupEndpoint: EndpointLookup): Promise<boolean> {
  const message = parseDeliveryMessage(record.body);
  if (!message) {
    // Retrying cannot repair it; keeping it would only walk it to the dead-letter queue.
    logger.error('Malformed delivery message dropped', { messageId: record.messageId });
    return true;
  }
  const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
  const decision = await deliverWebhook(message, attempt, retryDelays, lookupEndpoint);
  if (decision.outcome === 'retry_scheduled') await setVisibility(record, decision.retryInSeconds ?? 0);
  else if (decision.outcome === 'failed') await setVisibility(record, 0);
  return decision.outcome !== 'retry_scheduled' && decision.outcome !== 'failed';
}

/** Records are delivered side by side: one slow endpoint does not hold up the others. */
async function deliverBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const lookupEndpoint = endpointLookupsForOneBatch();
  const results = await Promise.allSettled(event.Records.map((r) => handleRecord(r, lookupEndpoint)));
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
