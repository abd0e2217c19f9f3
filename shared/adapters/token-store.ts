import {
  GetItemCommand,
  paginateQuery,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { tokenTag } from '../config.js';
import { NotFoundError } from '../domain/errors.js';
import { generateToken, prefixOfTokenId, type Scope, tokenIdFor } from '../domain/token.js';
import { dynamodb, isConditionalCheckFailure, tableName, withoutNulls } from './dynamodb.js';
import { keys } from './keys.js';

export interface TokenRecord {
  id: string;
  prefix: string;
  organisationId: string;
  /** SHA-256 of the whole token; the token itself is never stored. */
  hash: string;
  scopes: Scope[];
  name: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** What may be shown about a token after it was issued: everything but its hash. */
export type TokenSummary = Omit<TokenRecord, 'hash' | 'organisationId'>;

export function summariseToken({ hash: _hash, organisationId: _org, ...summary }: TokenRecord): TokenSummary {
  return summary;
}

export interface NewToken {
  organisationId: string;
  scopes: Scope[];
  name?: string;
}

/** Issues a token for an existing organisation. The returned `token` exists nowhere else: show it once. */
export async function issueToken(
  input: NewToken,
  now = new Date(),
): Promise<{ token: string; record: TokenRecord }> {
  const { token, prefix, hash } = generateToken(tokenTag());
  const id = tokenIdFor(prefix);
  const record: TokenRecord = {
    id,
    prefix,
    organisationId: input.organisationId,
    hash,
    scopes: input.scopes,
    name: input.name?.trim() || id,
    createdAt: now.toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  };
  try {
    await dynamodb().send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: marshall(keys.organisation(input.organisationId)),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: marshall({
                ...keys.token(prefix),
                kind: 'token',
                gsi1pk: keys.tokensOfOrganisation(input.organisationId),
                gsi1sk: `${record.createdAt}#${id}`,
                // Absent rather than NULL, so that revocation's if_not_exists sees no revocation yet.
                ...withoutNulls(record),
              }),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (
      error instanceof TransactionCanceledException &&
      error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
    ) {
      throw new NotFoundError(`Organisation ${input.organisationId}`);
    }
    throw error;
  }
  return { token, record };
}

export async function findTokenByPrefix(prefix: string): Promise<TokenRecord | undefined> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({ TableName: tableName(), Key: marshall(keys.token(prefix)), ConsistentRead: true }),
  );
  return Item ? toRecord(unmarshall(Item)) : undefined;
}

export async function listTokens(organisationId: string): Promise<TokenRecord[]> {
  const records: TokenRecord[] = [];
  const pages = paginateQuery(
    { client: dynamodb() },
    {
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: marshall({ ':pk': keys.tokensOfOrganisation(organisationId) }),
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) records.push(toRecord(unmarshall(item)));
  }
  return records;
}

/** Revoking twice is harmless: the first revocation time stands. */
export async function revokeToken(id: string, now = new Date()): Promise<{ id: string; revokedAt: string }> {
  const prefix = prefixOfTokenId(id);
  if (!prefix) throw new NotFoundError(`Token ${id}`);
  try {
    const { Attributes } = await dynamodb().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: marshall(keys.token(prefix)),
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: marshall({ ':now': now.toISOString() }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { id, revokedAt: String(unmarshall(Attributes ?? {}).revokedAt) };
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw new NotFoundError(`Token ${id}`);
    throw error;
  }
}

export async function recordTokenUse(prefix: string, now = new Date()): Promise<void> {
  await dynamodb().send(
    new UpdateItemCommand({
      TableName: tableName(),
      Key: marshall(keys.token(prefix)),
      UpdateExpression: 'SET lastUsedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: marshall({ ':now': now.toISOString() }),
    }),
  );
}

function toRecord(item: Record<string, unknown>): TokenRecord {
  return {
    id: String(item.id),
    prefix: String(item.prefix),
    organisationId: String(item.organisationId),
    hash: String(item.hash),
    scopes: item.scopes as Scope[],
    name: String(item.name),
    createdAt: String(item.createdAt),
    revokedAt: (item.revokedAt as string | null) ?? null,
    lastUsedAt: (item.lastUsedAt as string | null) ?? null,
  };
}
