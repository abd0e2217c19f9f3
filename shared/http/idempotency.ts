import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  findStoredResponse,
  IdempotencyRaceError,
  type IdempotentRequest,
  idempotencyWrite,
} from '../adapters/idempotency-store.js';
import type { SecretCipher } from '../adapters/secret-cipher.js';
import { commitTransaction, type TransactionItem } from '../adapters/transaction.js';
import type { CallerContext } from '../domain/authorizer-policy.js';
import { ConflictError, ValidationError } from '../domain/errors.js';
import { requestHeader } from './request.js';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key (hashed, as keys are client data) and a fingerprint of what it asks. */
export function idempotentRequestOf(event: APIGatewayProxyEvent): IdempotentRequest | undefined {
  if (event.httpMethod !== 'POST') return undefined;
  const key = requestHeader(event, 'idempotency-key');
  if (key === undefined) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new ValidationError([
      { field: 'Idempotency-Key', message: 'Use 1 to 255 visible ASCII characters, such as a UUID.' },
    ]);
  }
  const fingerprint = createHash('sha256')
    .update(`${event.httpMethod} ${event.path}\n${event.body ?? ''}`)
    .digest('hex');
  return { keyHash: createHash('sha256').update(key).digest('hex'), fingerprint };
}

/** The first response again, or a 409 when the key was used for a different request. */
export async function replayFor(
  event: APIGatewayProxyEvent,
  caller: CallerContext,
  cipher?: SecretCipher,
): Promise<APIGatewayProxyResult | undefined> {
  const request = idempotentRequestOf(event);
  if (!request) return undefined;
  const stored = await findStoredResponse(caller.organisationId, request.keyHash, cipher);
  if (!stored) return undefined;
  if (stored.fingerprint !== request.fingerprint) {
    throw new ConflictError(
      'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      'idempotency_conflict',
    );
  }
  return { ...stored.response, headers: { ...stored.response.headers, 'Idempotent-Replayed': 'true' } };
}

/**
 * Commits a write and, when the request has an Idempotency-Key, its response in the same
 * transaction. If a concurrent request with the same key won the race, its response is returned.
 */
export async function commitWrite(
  event: APIGatewayProxyEvent,
  caller: CallerContext,
  items: TransactionItem[],
  response: APIGatewayProxyResult,
  /** For a response that holds a secret: its replayable copy is stored encrypted. */
  cipher?: SecretCipher,
): Promise<APIGatewayProxyResult> {
  const request = idempotentRequestOf(event);
  const all = request
    ? [...items, await idempotencyWrite(caller.organisationId, request, response, cipher)]
    : items;
  try {
    await commitTransaction(all);
    return response;
  } catch (error) {
    if (!(error instanceof IdempotencyRaceError)) throw error;
    const replay = await replayFor(event, caller, cipher);
    if (!replay) throw error;
    return replay;
  }
}
