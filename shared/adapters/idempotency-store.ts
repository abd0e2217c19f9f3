import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import type { SecretCipher } from './secret-cipher.js';
import type { TransactionItem } from './transaction.js';

/** How long a key is remembered; a retry after that is a new request (as at Stripe). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 3600;

export interface IdempotentRequest {
  keyHash: string;
  fingerprint: string;
}

export interface StoredResponse {
  fingerprint: string;
  response: APIGatewayProxyResult;
}

export class IdempotencyRaceError extends Error {}

const context = (organisationId: string, keyHash: string) => ({ organisationId, idempotencyKey: keyHash });

/**
 * The record of a completed request, written in the same transaction as the change it made. A body
 * that carries a secret (a new webhook endpoint's) is stored encrypted with `cipher`, never in
 * plain text; only the function that writes such bodies needs a cipher, so no other bundle
 * carries the KMS client.
 */
export async function idempotencyWrite(
  organisationId: string,
  request: IdempotentRequest,
  response: APIGatewayProxyResult,
  cipher?: SecretCipher,
  now = new Date(),
): Promise<TransactionItem> {
  const body = cipher
    ? await cipher.encrypt(response.body, context(organisationId, request.keyHash))
    : response.body;
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: marshall({
          ...keys.idempotency(organisationId, request.keyHash),
          kind: 'idempotency',
          fingerprint: request.fingerprint,
          statusCode: response.statusCode,
          headers: JSON.stringify(response.headers ?? {}),
          body,
          encrypted: cipher !== undefined,
          expiresAt: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
        }),
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
        ExpressionAttributeValues: marshall({ ':now': Math.floor(now.getTime() / 1000) }),
      },
    },
    onConditionFailed: () => new IdempotencyRaceError(),
  };
}

export async function findStoredResponse(
  organisationId: string,
  keyHash: string,
  cipher?: SecretCipher,
  now = new Date(),
): Promise<StoredResponse | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.idempotency(organisationId, keyHash)),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  const item = unmarshall(Item);
  // TTL deletion lags (and never happens on DynamoDB Local): an expired record is no record.
  if (Number(item.expiresAt) < now.getTime() / 1000) return undefined;
  const fingerprint = String(item.fingerprint);
  // An encrypted body belongs to the one route that writes them; another route's request with the
  // same key differs in fingerprint and is refused before anything needs decrypting.
  if (item.encrypted && !cipher) return { fingerprint, response: { statusCode: 500, body: '' } };
  const body =
    item.encrypted && cipher
      ? await cipher.decrypt(String(item.body), context(organisationId, keyHash))
      : String(item.body);
  return {
    fingerprint,
    response: { statusCode: Number(item.statusCode), headers: JSON.parse(String(item.headers)), body },
  };
}
