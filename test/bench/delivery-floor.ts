import { randomUUID } from 'node:crypto';
import { BatchWriteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { startLocalSqs } from '../../infra/local/sqs.js';
import { deliveryAttemptItem } from '../../shared/adapters/delivery-log.js';
import { createSqsClient } from '../../shared/adapters/sqs.js';
import { sendWebhook } from '../../shared/adapters/webhook-sender.js';
import { serviceName } from '../../shared/config.js';
import { deliveryIdFor } from '../../shared/domain/delivery-id.js';
import { declareIncident, incidentEventData } from '../../shared/domain/incident.js';
import { type DeliveryMessage, webhookBody } from '../../shared/domain/webhook-events.js';
import { webhookHeaders } from '../../shared/domain/webhook-signature.js';
import {
  type DeliveryFloorConfig,
  type DeliveryFloorResult,
  RESULT_PREFIX,
} from './delivery-floor-process.js';

/**
 * The delivery floor, in its own process as the stack's delivery worker is in the stack's: a fresh
 * SQS emulator (startLocalSqs, persisted to SQLite like the stack's) holding messages shaped like
 * the relay's, received in batches by a few receivers at a time, each body signed with the
 * service's signing code and POSTed with its sender, then the batch's delivery-log items written in
 * one BatchWriteItem on the stack's DynamoDB Local (the least a delivery with a log must do), then
 * the batch deleted. No stream, relay, endpoint read or secret decryption. Started by the bench with its
 * configuration in BENCH_DELIVERY_FLOOR_CONFIG; prints one result line and exits.
 */
const config = JSON.parse(process.env.BENCH_DELIVERY_FLOOR_CONFIG ?? '') as DeliveryFloorConfig;
const queues = await startLocalSqs({ dataDir: config.dataDir });
const client = createSqsClient(queues.endpoint);
const dynamodb = new DynamoDBClient({
  endpoint: config.dynamodbEndpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const organisationId = randomUUID();
const endpointId = randomUUID();

/** What the relay sends for one declared incident and one endpoint. */
function deliveryMessage(now: Date): DeliveryMessage {
  const incident = declareIncident(
    randomUUID(),
    organisationId,
    { severity: 'low', category: 'availability', detectedAt: now.toISOString() },
    'tok_bench',
    now,
  );
  const eventId = randomUUID();
  return {
    deliveryId: deliveryIdFor(eventId, endpointId),
    endpointId,
    eventId,
    event: 'incident.declared',
    organisationId,
    occurredAt: now.toISOString(),
    data: incidentEventData(incident),
  };
}

/** Sending is not measured; a few at a time only makes it quicker. */
const SEND_CONCURRENCY = 8;

/** One SendMessage per delivery, as the local bus sends them. */
async function sendMessages(count: number): Promise<void> {
  let next = 0;
  const sender = async () => {
    while (next++ < count) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queues.queueUrl,
          MessageBody: JSON.stringify(deliveryMessage(new Date())),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: SEND_CONCURRENCY }, sender));
}

async function post(message: Message, url: string) {
  const delivery = JSON.parse(message.Body ?? '') as DeliveryMessage;
  const attempt = Number(message.Attributes?.ApproximateReceiveCount) || 1;
  const at = new Date().toISOString();
  const body = Buffer.from(webhookBody(delivery, attempt), 'utf8');
  const headers = webhookHeaders({
    secret: config.secret,
    deliveryId: delivery.deliveryId,
    event: delivery.event,
    body,
    timestampSeconds: Math.floor(Date.now() / 1000),
    serviceName: serviceName(),
  });
  const result = await sendWebhook(url, body, headers, { allowPrivate: true });
  return {
    ok: result.ok,
    logItem: deliveryAttemptItem({
      attempt: {
        organisationId: delivery.organisationId,
        endpointId: delivery.endpointId,
        deliveryId: delivery.deliveryId,
        eventId: delivery.eventId,
        event: delivery.event,
        attempt,
        at,
        outcome: result.ok ? 'succeeded' : 'retry_scheduled',
        statusCode: result.statusCode,
        errorClass: result.errorClass,
        latencyMs: result.latencyMs,
      },
      event: { occurredAt: delivery.occurredAt, data: delivery.data },
    }),
  };
}

/**
 * The receive call of infra/local/sqs-poller.ts, but with a 1 s wait: a long poll aborted by the
 * client stays open in the emulator and takes the next message into flight for a connection that is
 * gone (hidden for the visibility timeout), so the receivers are never aborted; they stop once the
 * queue is drained. The wait only matters when the queue is empty, that is after the last message.
 */
async function deliverMessages(count: number, url: string) {
  const figures = { handled: 0, postFailures: 0, deleteFailures: 0, lastDeleteAt: 0 };
  const receiver = async () => {
    while (figures.handled < count) {
      const { Messages: messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queues.queueUrl,
          MaxNumberOfMessages: config.batchSize,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      if (messages.length === 0) continue;
      const sent = await Promise.all(messages.map((message) => post(message, url)));
      figures.postFailures += sent.filter((s) => !s.ok).length;
      await dynamodb.send(
        new BatchWriteItemCommand({
          RequestItems: { [config.tableName]: sent.map((s) => ({ PutRequest: { Item: s.logItem } })) },
        }),
      );
      const { Failed = [] } = await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queues.queueUrl,
          Entries: messages.map((m, index) => ({ Id: String(index), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
      figures.deleteFailures += Failed.length;
      figures.handled += messages.length;
      figures.lastDeleteAt = performance.now();
    }
  };
  await Promise.all(Array.from({ length: config.receivers }, receiver));
  return figures;
}

await sendMessages(config.warmupMessages);
await deliverMessages(config.warmupMessages, config.warmupUrl);
const sendStarted = performance.now();
await sendMessages(config.messages);
const deliverStarted = performance.now();
const { postFailures, deleteFailures, lastDeleteAt } = await deliverMessages(config.messages, config.url);
const result: DeliveryFloorResult = {
  sendSeconds: (deliverStarted - sendStarted) / 1000,
  deliverSeconds: (lastDeleteAt - deliverStarted) / 1000,
  postFailures,
  deleteFailures,
};
console.log(`${RESULT_PREFIX}${JSON.stringify(result)}`);
client.destroy();
dynamodb.destroy();
await queues.stop();
