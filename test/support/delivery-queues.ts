import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type LocalSqsOptions, startLocalSqs } from '../../infra/local/sqs.js';
import { createSqsClient } from '../../shared/adapters/sqs.js';

/**
 * The delivery queue and its dead-letter queue on a fresh SQS emulator (fauxqs, ~100 ms to start),
 * persisted in a temporary folder as the local stack persists it; one per test file or test.
 */
export async function startDeliveryQueues(options: Omit<LocalSqsOptions, 'dataDir'> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'mis-sqs-'));
  const queues = await startLocalSqs({ ...options, dataDir });
  const client = createSqsClient(queues.endpoint);
  return {
    ...queues,
    client,
    stop: async () => {
      client.destroy();
      await queues.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type DeliveryQueues = Awaited<ReturnType<typeof startDeliveryQueues>>;

/** Visible, in flight and delayed messages together. */
export async function messagesIn(client: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}
