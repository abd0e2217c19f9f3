import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { createSqsClient } from '../../shared/adapters/sqs.js';
import { logger } from '../../shared/observability.js';
import { DELIVERY_QUEUE } from '../../shared/topology/queues.js';
import { DELIVERY_FUNCTION_TIMEOUT_SECONDS } from '../../shared/topology/timeouts.js';
import { lambdaContext } from './lambda-context.js';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface SqsPollerOptions {
  /** The emulator's endpoint (`LocalSqs.endpoint`). */
  endpoint: string;
  queueUrl: string;
  handler: SqsHandler;
  functionName?: string;
  /** Records per invocation; default the delivery event source mapping's 10. */
  batchSize?: number;
  /** Invocations at a time; default the mapping's maximum concurrency. */
  concurrency?: number;
  /** Long-poll wait; the mapping uses 20 s. */
  waitTimeSeconds?: number;
  /**
   * Where the receipt handles of the batches being handled are kept, so that a stack that died
   * mid-attempt releases those messages at its next start instead of after the visibility timeout.
   */
  inFlightFile?: string;
  /**
   * How many times the table's engine (DynamoDB Local) has died so far. DynamoDB on AWS answers a
   * write only once it is durable; DynamoDB Local can lose a write it answered within a few
   * milliseconds of its JVM's kill (FACTS.md). So a batch's messages are deleted only once the
   * engine has outlived the batch's writes by `SETTLE_GRACE_MS`; a batch during which it died is
   * released to be received again (a duplicate with the same delivery id, never a skip or a
   * failure logged by a write the engine then lost).
   */
  engineDeaths?: () => number;
}

/** Ten times the window in which DynamoDB Local was seen to lose an answered write. */
const SETTLE_GRACE_MS = 50;

export interface SqsPoller {
  /** Stops receiving, waits for the batches in flight and their deletes. */
  stop(): Promise<void>;
}

const RETRY_AFTER_ERROR_MS = 1000;

/**
 * The receipt handles of the messages whose attempt is under way. Only those are released after a
 * crash: a message the handler already set to wait out its backoff keeps that schedule, and a
 * crash mid-attempt counts as the attempt (as on SQS: the POST may have gone out).
 */
function inFlightJournal(file: string | undefined) {
  const handles = new Set<string>();
  const save = () => {
    if (!file) return;
    writeFileSync(`${file}.tmp`, JSON.stringify([...handles]));
    renameSync(`${file}.tmp`, file);
  };
  return {
    previous(): string[] {
      if (!file || !existsSync(file)) return [];
      try {
        const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
        return Array.isArray(parsed) ? parsed.filter((h): h is string => typeof h === 'string') : [];
      } catch {
        return [];
      }
    },
    begin(batch: string[]) {
      for (const handle of batch) handles.add(handle);
      save();
    },
    end(batch: string[]) {
      for (const handle of batch) handles.delete(handle);
      save();
    },
  };
}

function toLambdaAttributes(
  attributes: Record<string, MessageAttributeValue> | undefined,
): SQSMessageAttributes {
  return Object.fromEntries(
    Object.entries(attributes ?? {}).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        stringValue: value.StringValue,
        binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
        stringListValues: [],
        binaryListValues: [],
      },
    ]),
  );
}

function toRecord(message: Message, eventSourceARN: string, awsRegion: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: toLambdaAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
}

/**
 * The local stand-in for Lambda's SQS event source mapping with `ReportBatchItemFailures`:
 * long-polls the queue, invokes the handler with real-shaped SQS events, deletes the records that
 * succeeded and leaves the reported failures to SQS (visibility timeout, receive count, redrive).
 * As on AWS, a handler that throws, or names a record that was not in the batch, fails the whole
 * batch: nothing is deleted.
 */
export async function startSqsPoller(options: SqsPollerOptions): Promise<SqsPoller> {
  const client = createSqsClient(options.endpoint);
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: options.queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const eventSourceARN = Attributes?.QueueArn ?? '';
  const journal = inFlightJournal(options.inFlightFile);
  // The last run died during these attempts: let them be received again now.
  const interrupted = journal.previous();
  for (const receiptHandle of interrupted) {
    await client
      .send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: options.queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: 0,
        }),
      )
      .catch(() => undefined); // Deleted or redriven since: nothing to release.
  }
  journal.end(interrupted);
  const awsRegion = eventSourceARN.split(':')[3] ?? 'local';
  const functionName = options.functionName ?? 'deliver-webhook';
  const abort = new AbortController();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      abort.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });

  async function deleteSucceeded(records: SQSRecord[], response: SQSBatchResponse | undefined) {
    const failures = response?.batchItemFailures ?? [];
    const ids = new Set(records.map((r) => r.messageId));
    if (failures.some((f) => !ids.has(f.itemIdentifier))) {
      logger.error('The handler reported a record that was not in the batch; the whole batch is retried', {
        functionName,
      });
      return;
    }
    const failed = new Set(failures.map((f) => f.itemIdentifier));
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length === 0) return;
    const { Failed } = await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((r, index) => ({ Id: String(index), ReceiptHandle: r.receiptHandle })),
      }),
    );
    if (Failed?.length)
      logger.warn('Some processed messages could not be deleted', { functionName, failed: Failed });
  }

  /** Deletes what succeeded, unless the engine died during the batch or its grace (see `engineDeaths`). */
  async function settle(records: SQSRecord[], response: SQSBatchResponse | undefined, deathsBefore?: number) {
    if (deathsBefore !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_GRACE_MS));
      if (options.engineDeaths?.() !== deathsBefore) {
        logger.warn('The table engine died during a batch: its messages are received again', {
          functionName,
          messages: records.length,
        });
        await Promise.allSettled(
          records.map((r) =>
            client.send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: options.queueUrl,
                ReceiptHandle: r.receiptHandle,
                VisibilityTimeout: 0,
              }),
            ),
          ),
        );
        return;
      }
    }
    await deleteSucceeded(records, response);
  }

  /** Deletes under way: the next receive does not wait for them, as the event source mapping's does not. */
  const deleting = new Set<Promise<void>>();

  /**
   * Invokes the handler with one batch; once it has returned, deletes what succeeded without
   * holding up this loop's next receive. The batch's receipt handles stay in the journal until
   * then: a crash before the delete releases them at the next start (a duplicate with the same
   * delivery id, never a loss).
   */
  async function invoke(messages: Message[]): Promise<void> {
    const records = messages.map((m) => toRecord(m, eventSourceARN, awsRegion));
    const handles = records.map((r) => r.receiptHandle);
    journal.begin(handles);
    const deathsBefore = options.engineDeaths?.();
    let response: SQSBatchResponse | undefined;
    try {
      response = await options.handler(
        { Records: records },
        lambdaContext(functionName, DELIVERY_FUNCTION_TIMEOUT_SECONDS * 1000),
      );
    } catch (error) {
      logger.error('The SQS handler failed; the batch returns after the visibility timeout', {
        error,
        functionName,
      });
      journal.end(handles);
      return;
    }
    const deleted = settle(records, response, deathsBefore)
      .catch((error: unknown) => logger.error('Deleting processed messages failed', { error, functionName }))
      .finally(() => {
        journal.end(handles);
        deleting.delete(deleted);
      });
    deleting.add(deleted);
  }

  async function pollLoop(): Promise<void> {
    while (!abort.signal.aborted) {
      let messages: Message[];
      try {
        const received = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: options.batchSize ?? DELIVERY_QUEUE.batchSize,
            WaitTimeSeconds: options.waitTimeSeconds ?? 20,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (abort.signal.aborted) return;
        logger.warn('Receiving from the queue failed; trying again', { error, functionName });
        await pause(RETRY_AFTER_ERROR_MS);
        continue;
      }
      if (messages.length === 0) continue;
      try {
        await invoke(messages);
      } catch (error) {
        // The in-flight journal could not be written: the batch returns after the visibility timeout.
        logger.error('Invoking the handler failed', { error, functionName });
      }
    }
  }

  const loops = Array.from({ length: options.concurrency ?? DELIVERY_QUEUE.maxConcurrency }, () =>
    pollLoop(),
  );
  return {
    stop: async () => {
      abort.abort();
      await Promise.all(loops);
      await Promise.all(deleting);
      client.destroy();
    },
  };
}
