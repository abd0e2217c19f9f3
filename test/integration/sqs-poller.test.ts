import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalSqs } from '../../infra/local/sqs.js';
import { type SqsHandler, startSqsPoller } from '../../infra/local/sqs-poller.js';
import { createSqsClient } from '../../shared/adapters/sqs.js';
import { DELIVERY_QUEUE } from '../../shared/topology/queues.js';
import { type DeliveryQueues, messagesIn, startDeliveryQueues } from '../support/delivery-queues.js';
import { waitFor } from '../support/wait.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Fresh queues (1 s visibility, so that a failed batch returns quickly) and a poller calling `handler`. */
async function setUp(handler: SqsHandler, engineDeaths?: () => number, visibilityTimeoutSeconds = 1) {
  const queues = await startDeliveryQueues({ visibilityTimeoutSeconds });
  cleanups.push(queues.stop);
  const poller = await startSqsPoller({
    endpoint: queues.endpoint,
    queueUrl: queues.queueUrl,
    handler,
    ...(engineDeaths ? { engineDeaths } : {}),
  });
  cleanups.push(poller.stop);
  return { queues, poller };
}

async function send(queues: DeliveryQueues, ...bodies: string[]) {
  await queues.client.send(
    new SendMessageBatchCommand({
      QueueUrl: queues.queueUrl,
      Entries: bodies.map((body, i) => ({
        Id: String(i),
        MessageBody: body,
        MessageAttributes: { origin: { DataType: 'String', StringValue: 'test' } },
      })),
    }),
  );
}

const receivesOf = (seen: SQSRecord[], body: string) => seen.filter((r) => r.body === body);

describe('the local SQS event source mapping', () => {
  it('invokes with real-shaped records and deletes all but the reported failures', async () => {
    const seen: SQSRecord[] = [];
    const events: SQSEvent[] = [];
    const { queues } = await setUp(async (event) => {
      events.push(event);
      seen.push(...event.Records);
      const failures = event.Records.filter(
        (r) => r.body === 'b' && r.attributes.ApproximateReceiveCount === '1',
      );
      return { batchItemFailures: failures.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    await send(queues, 'a', 'b', 'c');

    await waitFor('b received a second time', () => receivesOf(seen, 'b').length === 2);
    await waitFor(
      'the queue to be empty',
      async () => (await messagesIn(queues.client, queues.queueUrl)) === 0,
    );
    expect(receivesOf(seen, 'a')).toHaveLength(1);
    expect(receivesOf(seen, 'c')).toHaveLength(1);
    expect(receivesOf(seen, 'b').map((r) => r.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    // Four receives in all (b twice), in batches of at most the mapping's size.
    expect(events.flatMap((e) => e.Records.map((r) => r.body)).sort()).toEqual(['a', 'b', 'b', 'c']);
    for (const event of events) expect(event.Records.length).toBeLessThanOrEqual(DELIVERY_QUEUE.batchSize);

    const record = receivesOf(seen, 'a')[0];
    expect(record).toMatchObject({
      body: 'a',
      md5OfBody: createHash('md5').update('a').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:webhook-deliveries',
      awsRegion: 'local',
      messageAttributes: { origin: { dataType: 'String', stringValue: 'test' } },
    });
    expect(record?.messageId).toMatch(/\S+/);
    expect(record?.receiptHandle).toMatch(/\S+/);
    expect(Object.keys(record?.attributes ?? {}).sort()).toEqual([
      'ApproximateFirstReceiveTimestamp',
      'ApproximateReceiveCount',
      'SenderId',
      'SentTimestamp',
    ]);
  });

  it('deletes nothing when the handler throws', async () => {
    const seen: SQSRecord[] = [];
    const { queues } = await setUp(async (event) => {
      seen.push(...event.Records);
      if (event.Records.some((r) => r.attributes.ApproximateReceiveCount === '1')) throw new Error('crash');
      return { batchItemFailures: [] };
    });
    await send(queues, 'x', 'y');
    await waitFor('both back after the visibility timeout', () =>
      ['x', 'y'].every((body) =>
        receivesOf(seen, body).some((r) => r.attributes.ApproximateReceiveCount === '2'),
      ),
    );
    await waitFor(
      'the queue to be empty',
      async () => (await messagesIn(queues.client, queues.queueUrl)) === 0,
    );
  });

  it('receives a batch again, at once, when the table engine died while it was handled', async () => {
    let deaths = 0;
    const seen: SQSRecord[] = [];
    const { queues } = await setUp(
      async (event) => {
        seen.push(...event.Records);
        // The engine dies right after this batch's writes were answered: they may be gone.
        if (event.Records.some((r) => r.body === 'k' && r.attributes.ApproximateReceiveCount === '1'))
          deaths += 1;
        return { batchItemFailures: [] };
      },
      () => deaths,
      // Long enough that only a release, not the timeout, brings it back within the wait.
      60,
    );
    await send(queues, 'k');
    await waitFor('k received a second time', () => receivesOf(seen, 'k').length === 2, {
      timeoutMs: 15_000,
    });
    await waitFor(
      'the queue to be empty',
      async () => (await messagesIn(queues.client, queues.queueUrl)) === 0,
    );
    expect(receivesOf(seen, 'k').map((r) => r.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    await send(queues, 'l');
    await waitFor('l received', () => receivesOf(seen, 'l').length === 1);
    await waitFor(
      'the queue to be empty',
      async () => (await messagesIn(queues.client, queues.queueUrl)) === 0,
    );
    expect(receivesOf(seen, 'l')).toHaveLength(1);
  });

  it('deletes nothing when the handler reports a record that was not in the batch', async () => {
    const seen: SQSRecord[] = [];
    const { queues } = await setUp(async (event): Promise<SQSBatchResponse> => {
      seen.push(...event.Records);
      const first = event.Records.every((r) => r.attributes.ApproximateReceiveCount === '1');
      return { batchItemFailures: first ? [{ itemIdentifier: 'not-in-this-batch' }] : [] };
    });
    await send(queues, 'p');
    await waitFor('p back after the visibility timeout', () => receivesOf(seen, 'p').length === 2);
  });

  it('waits for the batch in flight when stopped', async () => {
    let finished = false;
    let started = false;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const queues = await startDeliveryQueues({ visibilityTimeoutSeconds: 30 });
    cleanups.push(queues.stop);
    const poller = await startSqsPoller({
      endpoint: queues.endpoint,
      queueUrl: queues.queueUrl,
      handler: async () => {
        started = true;
        await released;
        finished = true;
        return { batchItemFailures: [] };
      },
    });
    await send(queues, 'slow');
    await waitFor('the handler to start', () => started);
    const stopping = poller.stop();
    // The handler is let go only after a turn of the event loop: a stop that did not wait would be done by then.
    setImmediate(release);
    await stopping;
    expect(finished).toBe(true);
    expect(await messagesIn(queues.client, queues.queueUrl)).toBe(0);
  });
});

describe('the local delivery queues', () => {
  it('have the redrive policy and visibility of the queue definition', async () => {
    const queues = await startDeliveryQueues({ visibilityTimeoutSeconds: 7 });
    cleanups.push(queues.stop);
    const { Attributes } = await queues.client.send(
      new GetQueueAttributesCommand({ QueueUrl: queues.queueUrl, AttributeNames: ['All'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe('7');
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: `arn:aws:sqs:local:000000000000:${DELIVERY_QUEUE.deadLetterName}`,
      maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount,
    });
  });

  it('keep their messages and receive counts across a restart, and take new settings', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mis-sqs-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const first = await startLocalSqs({ dataDir, visibilityTimeoutSeconds: 30 });
    const client = createSqsClient(first.endpoint);
    await client.send(new SendMessageCommand({ QueueUrl: first.queueUrl, MessageBody: 'kept' }));
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: first.queueUrl }));
    // Visibility 0 with persistence is what fauxqs 2.4.1 gets wrong without the patch in sqs.ts.
    await client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: first.queueUrl,
        ReceiptHandle: Messages[0]?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    client.destroy();
    await first.stop();

    const second = await startLocalSqs({ dataDir, visibilityTimeoutSeconds: 9 });
    cleanups.push(second.stop);
    const again = createSqsClient(second.endpoint);
    cleanups.push(async () => again.destroy());
    const { Attributes } = await again.send(
      new GetQueueAttributesCommand({ QueueUrl: second.queueUrl, AttributeNames: ['VisibilityTimeout'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe('9');
    const received = await again.send(
      new ReceiveMessageCommand({
        QueueUrl: second.queueUrl,
        MessageSystemAttributeNames: ['All'],
        WaitTimeSeconds: 1,
      }),
    );
    expect(received.Messages?.[0]).toMatchObject({
      Body: 'kept',
      Attributes: { ApproximateReceiveCount: '2' },
    });
  });
});
