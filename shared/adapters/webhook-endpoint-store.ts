import { randomUUID } from 'node:crypto';
import {
  DeleteItemCommand,
  GetItemCommand,
  paginateQuery,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { InvalidCursorError, NotFoundError } from '../domain/errors.js';
import { newSigningSecret, type WebhookEndpoint } from '../domain/webhook-endpoint.js';
import type { WebhookEventName } from '../domain/webhook-events.js';
import { dynamodb, isConditionalCheckFailure, tableName, withoutNulls } from './dynamodb.js';
import { keys } from './keys.js';
import { secretCipher } from './secret-cipher.js';
import { commitTransaction, type TransactionItem } from './transaction.js';

/** Sort key prefix of an endpoint in its organisation's webhooks partition. */
const ENDPOINT_PREFIX = 'ENDPOINT#';

const cipherContext = (endpoint: Pick<WebhookEndpoint, 'organisationId' | 'id'>) => ({
  organisationId: endpoint.organisationId,
  endpointId: endpoint.id,
});

/**
 * A new endpoint and the write that stores it with its secret encrypted. The returned secret exists
 * in plain text nowhere else: show it once.
 */
export async function prepareWebhookEndpoint(
  input: { organisationId: string; url: string; events: WebhookEventName[] },
  now = new Date(),
): Promise<{ endpoint: WebhookEndpoint; secret: string; write: TransactionItem }> {
  const endpoint: WebhookEndpoint = {
    id: randomUUID(),
    organisationId: input.organisationId,
    url: input.url,
    events: [...new Set(input.events)],
    createdAt: now.toISOString(),
    disabledAt: null,
    disabledReason: null,
  };
  const secret = newSigningSecret();
  const encryptedSecret = await secretCipher().encrypt(secret, cipherContext(endpoint));
  const write: TransactionItem = {
    write: {
      Put: {
        TableName: tableName(),
        Item: marshall({
          ...keys.webhookEndpoint(endpoint.organisationId, endpoint.id),
          kind: 'webhook-endpoint',
          ...withoutNulls(endpoint),
          encryptedSecret,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
  return { endpoint, secret, write };
}

export async function createWebhookEndpoint(
  input: { organisationId: string; url: string; events: WebhookEventName[] },
  now = new Date(),
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const { endpoint, secret, write } = await prepareWebhookEndpoint(input, now);
  await commitTransaction([write]);
  return { endpoint, secret };
}

export async function listWebhookEndpoints(organisationId: string): Promise<WebhookEndpoint[]> {
  const endpoints: WebhookEndpoint[] = [];
  const pages = paginateQuery(
    { client: dynamodb() },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: marshall({
        ':pk': keys.webhookEndpoints(organisationId),
        ':sk': ENDPOINT_PREFIX,
      }),
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) endpoints.push(toEndpoint(unmarshall(item)));
  }
  return endpoints.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export interface WebhookEndpointPage {
  endpoints: WebhookEndpoint[];
  nextCursor: string | null;
}

/**
 * One page of the organisation's endpoints, in the order of their ids (the sort key), so that a
 * page costs the same however many endpoints there are. The cursor is bound to the partition.
 */
export async function listWebhookEndpointPage(
  organisationId: string,
  limit: number,
  cursor?: string,
): Promise<WebhookEndpointPage> {
  const pk = keys.webhookEndpoints(organisationId);
  const startKey = cursor ? decodeCursor(cursor, { name: 'pk', value: pk }, ['pk', 'sk']) : undefined;
  if (startKey && !startKey.sk?.startsWith(ENDPOINT_PREFIX)) throw new InvalidCursorError();
  const { Items, LastEvaluatedKey } = await dynamodb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: marshall({ ':pk': pk, ':sk': ENDPOINT_PREFIX }),
      Limit: limit,
      ConsistentRead: true,
      ...(startKey ? { ExclusiveStartKey: marshall(startKey) } : {}),
    }),
  );
  const last = LastEvaluatedKey ? unmarshall(LastEvaluatedKey) : undefined;
  return {
    endpoints: (Items ?? []).map((item) => toEndpoint(unmarshall(item))),
    nextCursor: last ? encodeCursor({ pk: String(last.pk), sk: String(last.sk) }) : null,
  };
}

export async function getWebhookEndpoint(
  organisationId: string,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  const item = await getItem(organisationId, id);
  return item ? toEndpoint(item) : undefined;
}

/** The endpoint with its decrypted signing secret, for the delivery function only. */
export async function getWebhookEndpointWithSecret(
  organisationId: string,
  id: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string } | undefined> {
  const item = await getItem(organisationId, id);
  if (!item) return undefined;
  const endpoint = toEndpoint(item);
  return {
    endpoint,
    secret: await secretCipher().decrypt(String(item.encryptedSecret), cipherContext(endpoint)),
  };
}

export async function deleteWebhookEndpoint(organisationId: string, id: string): Promise<void> {
  try {
    await dynamodb().send(
      new DeleteItemCommand({
        TableName: tableName(),
        Key: marshall(keys.webhookEndpoint(organisationId, id)),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new NotFoundError(`Webhook endpoint ${id}`);
    throw error;
  }
}

/** A subscriber's 410 Gone: no more deliveries until the endpoint is registered again. */
export async function disableWebhookEndpoint(
  organisationId: string,
  id: string,
  reason: string,
  now = new Date(),
) {
  try {
    await dynamodb().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: marshall(keys.webhookEndpoint(organisationId, id)),
        UpdateExpression: 'SET disabledAt = if_not_exists(disabledAt, :now), disabledReason = :reason',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: marshall({ ':now': now.toISOString(), ':reason': reason }),
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
  }
}

async function getItem(organisationId: string, id: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.webhookEndpoint(organisationId, id)),
      ConsistentRead: true,
    }),
  );
  return Item ? unmarshall(Item) : undefined;
}

function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  return {
    id: String(item.id),
    organisationId: String(item.organisationId),
    url: String(item.url),
    events: (item.events as WebhookEventName[]) ?? [],
    createdAt: String(item.createdAt),
    disabledAt: (item.disabledAt as string | undefined) ?? null,
    disabledReason: (item.disabledReason as string | undefined) ?? null,
  };
}
