import { mkdirSync } from 'node:fs';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueDoesNotExist,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { createSqsClient, LOCAL_SQS_REGION } from '../../shared/adapters/sqs.js';
import { MAX_VISIBILITY_SECONDS } from '../../shared/domain/retry-schedule.js';
import { DELIVERY_QUEUE } from '../../shared/topology/queues.js';
import { LocalStackError } from './local-stack-error.js';

export interface LocalSqs {
  /** Point an SQS client here (`SQS_ENDPOINT`). */
  endpoint: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
  stop(): Promise<void>;
}

export interface LocalSqsOptions {
  /** Keep queues and messages in this folder across restarts; in memory when omitted (tests). */
  dataDir?: string;
  port?: number;
  /**
   * The delivery queue's visibility timeout: how long a message taken by a worker that then died
   * stays hidden. Default `DELIVERY_VISIBILITY_TIMEOUT_SECONDS`, else the AWS value (180 s). Keep it
   * above the longest batch (a 10 s POST plus the log writes): a record that succeeded beside a slow
   * one is deleted only when the whole batch returns, and would otherwise be delivered again.
   */
  visibilityTimeoutSeconds?: number;
}

/** fauxqs's account id; with a queue URL on the emulator's own host, lookups go by name. */
const ACCOUNT = '000000000000';

function visibilityFromEnv(): number {
  const value = process.env.DELIVERY_VISIBILITY_TIMEOUT_SECONDS;
  if (value === undefined || value === '') return DELIVERY_QUEUE.visibilityTimeoutSeconds;
  const seconds = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= 0 && seconds <= MAX_VISIBILITY_SECONDS)) {
    throw new LocalStackError(
      `DELIVERY_VISIBILITY_TIMEOUT_SECONDS must be whole seconds from 0 to ${MAX_VISIBILITY_SECONDS}; got "${value}".`,
    );
  }
  return seconds;
}

interface FauxqsPersistence {
  db: { prepare(sql: string): { run(...values: unknown[]): unknown } };
  updateMessageReady(messageId: string): void;
}

let persistencePatched = false;

/**
 * fauxqs 2.4.1 with `dataDir` fails ChangeMessageVisibility(0): its write-through sets the receive
 * count to NULL (a NOT NULL column), answers 500 and drops the message from memory until the next
 * start. The delivery function uses visibility 0 after the last attempt and `mis dlq list` to put
 * messages back, so the write is corrected here: clear the receipt, keep the count.
 */
async function patchFauxqsPersistence(): Promise<void> {
  if (persistencePatched) return;
  const moduleUrl = new URL('./persistence.js', import.meta.resolve('fauxqs')).href;
  const { PersistenceManager } = (await import(moduleUrl)) as {
    PersistenceManager?: { prototype: FauxqsPersistence };
  };
  if (typeof PersistenceManager?.prototype.updateMessageReady !== 'function') return;
  PersistenceManager.prototype.updateMessageReady = function (this: FauxqsPersistence, messageId: string) {
    this.db
      .prepare(
        'UPDATE sqs_messages SET receipt_handle = NULL, visibility_deadline = NULL WHERE message_id = ?',
      )
      .run(messageId);
  };
  persistencePatched = true;
}

/**
 * Creates the queue, or brings a persisted one's attributes up to date. CreateQueue refuses an
 * existing name with other attributes, and the emulator's own createQueue would replace the queue
 * with its messages, so an existing queue is updated in place.
 */
async function ensureQueue(
  client: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<void> {
  try {
    const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: name }));
    await client.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: attributes }));
  } catch (error) {
    if (!(error instanceof QueueDoesNotExist)) throw error;
    await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  }
}

/**
 * The local stand-in for the delivery queue and its dead-letter queue: the SQS emulator fauxqs in
 * this process, with the same definition (`DELIVERY_QUEUE`) and redrive policy as the CDK stack.
 */
export async function startLocalSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  const visibilityTimeout = options.visibilityTimeoutSeconds ?? visibilityFromEnv();
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    await patchFauxqsPersistence();
  }
  const server = await startFauxqs({
    port: options.port ?? 0,
    logger: false,
    defaultRegion: LOCAL_SQS_REGION,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  const endpoint = `http://127.0.0.1:${server.port}`;
  const client = createSqsClient(endpoint);
  try {
    await ensureQueue(client, DELIVERY_QUEUE.deadLetterName, {
      MessageRetentionPeriod: String(DELIVERY_QUEUE.deadLetterRetentionSeconds),
    });
    const deadLetterQueueUrl = `${endpoint}/${ACCOUNT}/${DELIVERY_QUEUE.deadLetterName}`;
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ['QueueArn'] }),
    );
    await ensureQueue(client, DELIVERY_QUEUE.name, {
      VisibilityTimeout: String(visibilityTimeout),
      MessageRetentionPeriod: String(DELIVERY_QUEUE.retentionSeconds),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: Attributes?.QueueArn,
        maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount,
      }),
    });
    return {
      endpoint,
      queueUrl: `${endpoint}/${ACCOUNT}/${DELIVERY_QUEUE.name}`,
      deadLetterQueueUrl,
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    client.destroy();
  }
}
