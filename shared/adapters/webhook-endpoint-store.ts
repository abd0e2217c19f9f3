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
import { ConflictError, InvalidCursorError, NotFoundError } from '../domain/errors.js';
import {
  type DisabledReason,
  disabledReasonOf,
  newSigningSecret,
  type WebhookEndpoint,
} from '../domain/webhook-endpoint.js';
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
  input: { organisationId: string; url: string; events: WebhookEventName[]; description?: string },
  now = new Date(),
): Promise<{ endpoint: WebhookEndpoint; secret: string; write: TransactionItem }> {
  const endpoint: WebhookEndpoint = {
    id: randomUUID(),
    organisationId: input.organisationId,
    url: input.url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    createdAt: now.toISOString(),
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
    previousSecretExpiresAt: null,
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

/**
 * The endpoint with its decrypted signing secret, for the delivery function only; during a
 * rotation's overlap also the previous secret, which signs beside the new one.
 */
export async function getWebhookEndpointWithSecret(
  organisationId: string,
  id: string,
  now = new Date(),
): Promise<EndpointWithSecret | undefined> {
  const item = await getItem(organisationId, id);
  return item ? endpointWithSecret(item, now) : undefined;
}

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
  previousSecret?: string;
}

/** A stored endpoint item with its signing secret (and the previous one while they overlap) decrypted. */
export async function endpointWithSecret(
  item: Record<string, unknown>,
  now = new Date(),
): Promise<EndpointWithSecret> {
  const endpoint = toEndpoint(item);
  const context = cipherContext(endpoint);
  const overlapping =
    typeof item.previousEncryptedSecret === 'string' &&
    endpoint.previousSecretExpiresAt !== null &&
    Date.parse(endpoint.previousSecretExpiresAt) > now.getTime();
  const [secret, previousSecret] = await Promise.all([
    secretCipher().decrypt(String(item.encryptedSecret), context),
    overlapping ? secretCipher().decrypt(String(item.previousEncryptedSecret), context) : undefined,
  ]);
  return { endpoint, secret, ...(previousSecret === undefined ? {} : { previousSecret }) };
}

export interface WebhookEndpointChange {
  url?: string;
  events?: WebhookEventName[];
  /** null removes it. */
  description?: string | null;
  enabled?: boolean;
}

/**
 * Applies an owner's change and returns the endpoint as it now is. Enabling clears the reason and
 * the failure streak (the `failing` clock starts again); disabling by hand keeps an earlier
 * reason and time (an endpoint that answered 410 stays `gone`).
 */
export async function updateWebhookEndpoint(
  organisationId: string,
  id: string,
  change: WebhookEndpointChange,
  now = new Date(),
): Promise<WebhookEndpoint> {
  const sets: string[] = [];
  const removes: string[] = [];
  const values: Record<string, unknown> = {};
  if (change.url !== undefined) {
    sets.push('#url = :url');
    values[':url'] = change.url;
  }
  if (change.events !== undefined) {
    sets.push('events = :events');
    values[':events'] = [...new Set(change.events)];
  }
  if (change.description === null) removes.push('description');
  else if (change.description !== undefined) {
    sets.push('description = :description');
    values[':description'] = change.description;
  }
  if (change.enabled === true) removes.push('disabledAt', 'disabledReason', 'failingSince');
  if (change.enabled === false) {
    sets.push(
      'disabledAt = if_not_exists(disabledAt, :now)',
      'disabledReason = if_not_exists(disabledReason, :manual)',
    );
    Object.assign(values, { ':now': now.toISOString(), ':manual': 'manual' satisfies DisabledReason });
  }
  const expression = [
    sets.length > 0 ? `SET ${sets.join(', ')}` : '',
    removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
  ].join(' ');
  try {
    const { Attributes } = await dynamodb().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: marshall(keys.webhookEndpoint(organisationId, id)),
        // An empty change still answers the endpoint as it is (and 404 when there is none).
        UpdateExpression: expression.trim() === '' ? 'SET id = id' : expression.trim(),
        ConditionExpression: 'attribute_exists(pk)',
        ...(change.url !== undefined ? { ExpressionAttributeNames: { '#url': 'url' } } : {}),
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: marshall(values) } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toEndpoint(unmarshall(Attributes ?? {}));
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new NotFoundError('Webhook endpoint');
    throw error;
  }
}

/**
 * A new secret and the write that makes it the signing one. For `overlapHours` the secret it
 * replaces keeps signing beside it; with 0 it stops at once. A secret that was itself still in its
 * overlap (a second rotation within the overlap) stops at once: only two secrets ever sign.
 * The write is conditional on the secret read, so two rotations at once cannot both win.
 */
export async function prepareSecretRotation(
  organisationId: string,
  id: string,
  overlapHours: number,
  now = new Date(),
): Promise<{ endpoint: WebhookEndpoint; secret: string; write: TransactionItem }> {
  const item = await getItem(organisationId, id);
  if (!item) throw new NotFoundError('Webhook endpoint');
  const current = toEndpoint(item);
  const secret = newSigningSecret();
  const encryptedSecret = await secretCipher().encrypt(secret, cipherContext(current));
  const previousSecretExpiresAt =
    overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000).toISOString() : null;
  const update =
    previousSecretExpiresAt === null
      ? 'SET encryptedSecret = :new REMOVE previousEncryptedSecret, previousSecretExpiresAt'
      : 'SET encryptedSecret = :new, previousEncryptedSecret = :old, previousSecretExpiresAt = :until';
  const write: TransactionItem = {
    write: {
      Update: {
        TableName: tableName(),
        Key: marshall(keys.webhookEndpoint(organisationId, id)),
        UpdateExpression: update,
        ConditionExpression: 'encryptedSecret = :old',
        ExpressionAttributeValues: marshall({
          ':new': encryptedSecret,
          ':old': String(item.encryptedSecret),
          ...(previousSecretExpiresAt === null ? {} : { ':until': previousSecretExpiresAt }),
        }),
      },
    },
    onConditionFailed: () =>
      new ConflictError(
        'The endpoint was rotated or removed meanwhile; read it and rotate again.',
        'conflict',
      ),
  };
  return { endpoint: { ...current, previousSecretExpiresAt }, secret, write };
}

/**
 * Starts the failure streak at `now` unless one is running, and answers since when it runs: what
 * the `failing` disable counts from.
 */
export async function noteEndpointFailure(
  organisationId: string,
  id: string,
  now = new Date(),
): Promise<string> {
  try {
    const { Attributes } = await dynamodb().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: marshall(keys.webhookEndpoint(organisationId, id)),
        UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: marshall({ ':now': now.toISOString() }),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return String(unmarshall(Attributes ?? {}).failingSince ?? now.toISOString());
  } catch (error) {
    if (isConditionalCheckFailure(error)) return now.toISOString();
    throw error;
  }
}

/** A success ends the failure streak. */
export async function clearEndpointFailure(organisationId: string, id: string): Promise<void> {
  try {
    await dynamodb().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: marshall(keys.webhookEndpoint(organisationId, id)),
        UpdateExpression: 'REMOVE failingSince',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
  }
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

/**
 * A subscriber's 410 Gone (`gone`) or a long failure streak (`failing`): its later events are logged
 * `skipped` until its owner enables it again.
 */
export async function disableWebhookEndpoint(
  organisationId: string,
  id: string,
  reason: DisabledReason,
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
    description: (item.description as string | undefined) ?? null,
    createdAt: String(item.createdAt),
    disabledAt: (item.disabledAt as string | undefined) ?? null,
    disabledReason: disabledReasonOf(item.disabledReason, item.disabledAt),
    failingSince: (item.failingSince as string | undefined) ?? null,
    previousSecretExpiresAt: (item.previousSecretExpiresAt as string | undefined) ?? null,
  };
}
