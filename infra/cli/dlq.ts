import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { latestAttempt } from '../../shared/adapters/delivery-log.js';
import { createSqsClient } from '../../shared/adapters/sqs.js';
import { parseDeliveryMessage } from '../../shared/schemas/delivery-message.js';
import { ATTEMPTS_MADE_ATTRIBUTE } from '../../shared/topology/queues.js';
import { CliError, localStack } from './target.js';

/** Where `mis dlq` acts: the delivery queue and its dead-letter queue, and a client for them. */
export interface DeadLetterTarget {
  sqs: SQSClient;
  deliveryQueueUrl: string;
  deadLetterQueueUrl: string;
  /**
   * Long polling asks every SQS server, so that an empty answer means an empty queue (1 s, the
   * default); the local emulator is one server, where a short poll (0) is as complete.
   */
  waitSeconds?: number;
}

export interface DeadLetter {
  messageId: string;
  /** null when the message is not a delivery message. */
  deliveryId: string | null;
  event: string | null;
  endpointId: string | null;
  organisationId: string | null;
  /** Attempts made before it was dead-lettered, from the delivery log. */
  attempts: number | null;
  /** The newest attempt's failure, e.g. `http_error (HTTP 500)` or `timeout`. */
  lastError: string | null;
  lastAttemptAt: string | null;
}

export type RedrivenDelivery = Pick<
  DeadLetter,
  'messageId' | 'deliveryId' | 'event' | 'endpointId' | 'organisationId'
>;

/** A listing or a redrive stops here; run it again for more. */
const MAX_MESSAGES = 1000;
/** Long enough to list or move a batch; a peeked message is made visible again right after. */
const HOLD_SECONDS = 60;

/**
 * The queues of the running local stack (its stack file), or of a deployed stack (its outputs
 * `DeliveryQueueUrl` and `DeadLetterQueueUrl`). `resolveTarget` must have run first: the delivery
 * log read for `lastError` uses the table it selects.
 */
export async function resolveDeadLetterTarget(stackName: string | undefined): Promise<DeadLetterTarget> {
  if (!stackName) {
    const { info } = localStack();
    if (!info.sqsEndpoint || !info.deliveryQueueUrl || !info.deadLetterQueueUrl) {
      throw new CliError(
        'The running local stack names no delivery queues in its stack.json: restart it with `npm start`.',
      );
    }
    return {
      sqs: createSqsClient(info.sqsEndpoint),
      deliveryQueueUrl: info.deliveryQueueUrl,
      deadLetterQueueUrl: info.deadLetterQueueUrl,
      waitSeconds: 0,
    };
  }
  const { Stacks } = await new CloudFormationClient({}).send(
    new DescribeStacksCommand({ StackName: stackName }),
  );
  const outputs = Object.fromEntries((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const { DeliveryQueueUrl, DeadLetterQueueUrl, Region } = outputs;
  if (!DeliveryQueueUrl || !DeadLetterQueueUrl) {
    throw new CliError(`Stack ${stackName} has no DeliveryQueueUrl and DeadLetterQueueUrl outputs.`);
  }
  return {
    sqs: new SQSClient(Region ? { region: Region } : {}),
    deliveryQueueUrl: DeliveryQueueUrl,
    deadLetterQueueUrl: DeadLetterQueueUrl,
  };
}

async function receiveBatch(target: DeadLetterTarget): Promise<Message[]> {
  const { Messages } = await target.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: target.deadLetterQueueUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: HOLD_SECONDS,
      WaitTimeSeconds: target.waitSeconds ?? 1,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

async function release(target: DeadLetterTarget, messages: Message[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const chunk = messages.slice(i, i + 10);
    await target.sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: target.deadLetterQueueUrl,
        Entries: chunk.map((m, index) => ({
          Id: String(index),
          ReceiptHandle: m.ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
}

function describe(message: Message): RedrivenDelivery {
  const delivery = parseDeliveryMessage(message.Body ?? '');
  return {
    messageId: message.MessageId ?? '',
    deliveryId: delivery?.deliveryId ?? null,
    event: delivery?.event ?? null,
    endpointId: delivery?.endpointId ?? null,
    organisationId: delivery?.organisationId ?? null,
  };
}

async function withLastError(letter: RedrivenDelivery): Promise<DeadLetter> {
  const last = letter.deliveryId ? await latestAttempt(letter.deliveryId) : undefined;
  const lastError = last?.errorClass
    ? `${last.errorClass}${last.statusCode ? ` (HTTP ${last.statusCode})` : ''}`
    : (last?.outcome ?? null);
  return { ...letter, attempts: last?.attempt ?? null, lastError, lastAttemptAt: last?.at ?? null };
}

/**
 * What is in the dead-letter queue, without consuming it: each message is received (hidden for a
 * minute) and made visible again once the listing is complete.
 */
export async function listDeadLetters(target: DeadLetterTarget): Promise<DeadLetter[]> {
  const held: Message[] = [];
  const seen = new Set<string>();
  try {
    while (held.length < MAX_MESSAGES) {
      const batch = (await receiveBatch(target)).filter((m) => !seen.has(m.MessageId ?? ''));
      if (batch.length === 0) break;
      for (const message of batch) seen.add(message.MessageId ?? '');
      held.push(...batch);
    }
  } finally {
    await release(target, held);
  }
  return Promise.all(held.map((message) => withLastError(describe(message))));
}

/**
 * Moves every dead-lettered delivery back to the delivery queue as the same delivery (same id, its
 * idempotency key, same event), marked as sent again. A message leaves the dead-letter queue only
 * after the send succeeded. SQS counts receives per message, and the moved message is a new one: it
 * has a fresh schedule of six attempts, numbered on from the log's count (7 to 12).
 */
export async function redriveDeadLetters(target: DeadLetterTarget): Promise<RedrivenDelivery[]> {
  const moved: RedrivenDelivery[] = [];
  const movedDeliveries = new Set<string>();
  while (moved.length < MAX_MESSAGES) {
    const batch = await receiveBatch(target);
    if (batch.length === 0) break;
    const pending = [...batch];
    try {
      while (pending.length > 0) {
        const message = pending[0] as Message;
        const letter = describe(message);
        // Back already in this run (failed again within seconds): leave it for the operator.
        if (letter.deliveryId && movedDeliveries.has(letter.deliveryId)) return moved;
        await target.sqs.send(
          new SendMessageCommand({
            QueueUrl: target.deliveryQueueUrl,
            MessageBody: markedResent(message.Body ?? ''),
            MessageAttributes: withoutAttemptsMade(message.MessageAttributes),
          }),
        );
        await target.sqs.send(
          new DeleteMessageCommand({
            QueueUrl: target.deadLetterQueueUrl,
            ReceiptHandle: message.ReceiptHandle,
          }),
        );
        pending.shift();
        moved.push(letter);
        if (letter.deliveryId) movedDeliveries.add(letter.deliveryId);
      }
    } finally {
      await release(target, pending);
    }
  }
  return moved;
}

/**
 * The same delivery (same id, same event) marked as sent again, so that its `attempt` goes on from
 * the log's count instead of starting at 1 like a new delivery's; a body that is not a delivery
 * message is moved unchanged (the delivery function drops it).
 */
function markedResent(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return body;
    return JSON.stringify({ ...parsed, resent: true });
  } catch {
    return body;
  }
}

/** A redriven delivery starts its six attempts afresh, whatever it had made before it was sent back. */
function withoutAttemptsMade(attributes: Message['MessageAttributes']): Message['MessageAttributes'] {
  if (!attributes) return attributes;
  const { [ATTEMPTS_MADE_ATTRIBUTE]: _made, ...rest } = attributes;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
