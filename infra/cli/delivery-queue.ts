import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SendDeliveries } from '../../shared/app/send-again.js';
import type { DeadLetterTarget } from './dlq.js';

/** SQS takes at most ten messages per SendMessageBatch. */
const BATCH = 10;

/**
 * The CLI's way onto the delivery queue: what the event bus rule does with a delivery (its detail
 * becomes the message body), done directly, as `mis dlq redrive` does.
 */
export function sendToDeliveryQueue(target: DeadLetterTarget): SendDeliveries {
  return async (messages) => {
    for (let start = 0; start < messages.length; start += BATCH) {
      const batch = messages.slice(start, start + BATCH);
      const { Failed = [] } = await target.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: target.deliveryQueueUrl,
          Entries: batch.map((message, i) => ({ Id: String(i), MessageBody: JSON.stringify(message) })),
        }),
      );
      if (Failed.length > 0) throw new Error(`The delivery queue refused ${Failed.length} deliveries`);
    }
  };
}
