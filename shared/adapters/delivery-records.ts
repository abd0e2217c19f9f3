import { GetItemCommand, paginateQuery, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DeliveryOutcome } from '../domain/delivery-attempt.js';
import { expiresAtOf, isExpired } from '../domain/delivery-retention.js';
import type { DeliveryMessage } from '../domain/webhook-events.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';

/**
 * One item per delivery (one event to one endpoint) beside its attempts in the endpoint's delivery
 * partition: the event exactly as it was sent (the payload holds ids and non-personal fields only),
 * how many attempts it has had, and its last outcome. It expires with the delivery's newest log
 * entry, so recover and redeliver can rebuild the exact event for as long as the log shows it (the
 * outbox item that first carried the event is kept 7 days only).
 */
const RECORD_PREFIX = 'DELIVERY#';

/** Outcomes a `recover` sends again: the event never reached the endpoint. */
export const RECOVERABLE_OUTCOMES = [
  'failed',
  'skipped',
  'endpoint_disabled',
] as const satisfies readonly DeliveryOutcome[];

const recordKey = (organisationId: string, endpointId: string, deliveryId: string) => ({
  pk: keys.deliveries(organisationId, endpointId),
  sk: `${RECORD_PREFIX}${deliveryId}`,
});

/** DynamoDB reserves `data` and `event` as words; every attribute goes through a name. */
const NAMES = {
  '#eventId': 'eventId',
  '#event': 'event',
  '#occurredAt': 'occurredAt',
  '#data': 'data',
  '#createdAt': 'createdAt',
  '#expiresAt': 'expiresAt',
};

const KEEP_EVENT =
  '#eventId = if_not_exists(#eventId, :eventId), #event = if_not_exists(#event, :event), ' +
  '#occurredAt = if_not_exists(#occurredAt, :occurredAt), #data = if_not_exists(#data, :data), ' +
  '#createdAt = if_not_exists(#createdAt, :at), #expiresAt = :expiresAt';

const eventValues = (message: DeliveryMessage, at: Date) => ({
  ':eventId': message.eventId,
  ':event': message.event,
  ':occurredAt': message.occurredAt,
  ':data': message.data,
  ':at': at.toISOString(),
  ':expiresAt': expiresAtOf(at),
});

/**
 * Counts an attempt before it is made and answers its number: every earlier attempt of this
 * delivery counts, automatic, redriven or redelivered. Counted first, so that an attempt cut short
 * by a crash (the POST may have gone out) still counts, as SQS counts the receive.
 */
export async function beginAttempt(message: DeliveryMessage, at = new Date()): Promise<number> {
  const { Attributes } = await dynamodb().send(
    new UpdateItemCommand({
      TableName: tableName(),
      Key: marshall(recordKey(message.organisationId, message.endpointId, message.deliveryId)),
      UpdateExpression: `SET ${KEEP_EVENT} ADD attempts :one`,
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: marshall(
        { ...eventValues(message, at), ':one': 1 },
        { removeUndefinedValues: true },
      ),
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(unmarshall(Attributes ?? {}).attempts ?? 1);
}

/**
 * The delivery was not sent (its endpoint is disabled): kept, with its event, as `skipped`. Answers
 * the number its next real attempt will carry (a skip is no attempt: nothing reached anyone).
 */
export async function noteSkipped(message: DeliveryMessage, at = new Date()): Promise<number> {
  const { Attributes } = await dynamodb().send(
    new UpdateItemCommand({
      TableName: tableName(),
      Key: marshall(recordKey(message.organisationId, message.endpointId, message.deliveryId)),
      UpdateExpression: `SET ${KEEP_EVENT}, lastOutcome = :skipped, lastAt = :at`,
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: marshall(
        { ...eventValues(message, at), ':skipped': 'skipped' satisfies DeliveryOutcome },
        { removeUndefinedValues: true },
      ),
      ReturnValues: 'ALL_NEW',
    }),
  );
  return Number(unmarshall(Attributes ?? {}).attempts ?? 0) + 1;
}

/** The outcome of the attempt `beginAttempt` counted: what `recover` selects by. */
export async function finishAttempt(
  message: Pick<DeliveryMessage, 'organisationId' | 'endpointId' | 'deliveryId'>,
  outcome: DeliveryOutcome,
  at: Date,
): Promise<void> {
  await dynamodb().send(
    new UpdateItemCommand({
      TableName: tableName(),
      Key: marshall(recordKey(message.organisationId, message.endpointId, message.deliveryId)),
      UpdateExpression: 'SET lastOutcome = :outcome, lastAt = :at, #expiresAt = :expiresAt',
      ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: marshall({
        ':outcome': outcome,
        ':at': at.toISOString(),
        ':expiresAt': expiresAtOf(at),
      }),
    }),
  );
}

/** The delivery's exact event, or undefined when there is none (or its retention is over). */
export async function findDelivery(
  organisationId: string,
  endpointId: string,
  deliveryId: string,
  now = new Date(),
): Promise<DeliveryMessage | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(recordKey(organisationId, endpointId, deliveryId)),
      ConsistentRead: true,
    }),
  );
  const item = Item ? unmarshall(Item) : undefined;
  if (!item || isExpired(item.expiresAt, now)) return undefined;
  return messageOf(item, organisationId, endpointId);
}

/**
 * Every delivery of the endpoint whose last outcome since `since` is recoverable, as the messages to
 * send again. Reads the endpoint's delivery records only (not its attempts), a page at a time.
 */
export async function listRecoverable(
  organisationId: string,
  endpointId: string,
  since: Date,
  now = new Date(),
): Promise<DeliveryMessage[]> {
  const pages = paginateQuery(
    { client: dynamodb() },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: 'lastOutcome IN (:o1, :o2, :o3) AND lastAt >= :since AND #expiresAt > :now',
      ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: marshall({
        ':pk': keys.deliveries(organisationId, endpointId),
        ':prefix': RECORD_PREFIX,
        ':o1': RECOVERABLE_OUTCOMES[0],
        ':o2': RECOVERABLE_OUTCOMES[1],
        ':o3': RECOVERABLE_OUTCOMES[2],
        ':since': since.toISOString(),
        ':now': Math.floor(now.getTime() / 1000),
      }),
      ConsistentRead: true,
    },
  );
  const messages: DeliveryMessage[] = [];
  for await (const page of pages) {
    for (const item of page.Items ?? [])
      messages.push(messageOf(unmarshall(item), organisationId, endpointId));
  }
  // Oldest first, so that a subscriber receives what it missed in the order it happened.
  return messages.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
}

function messageOf(
  item: Record<string, unknown>,
  organisationId: string,
  endpointId: string,
): DeliveryMessage {
  return {
    deliveryId: String(item.sk).slice(RECORD_PREFIX.length),
    endpointId,
    organisationId,
    eventId: String(item.eventId),
    event: item.event as DeliveryMessage['event'],
    occurredAt: String(item.occurredAt),
    data: (item.data as Record<string, unknown>) ?? {},
  };
}
