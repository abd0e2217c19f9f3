import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  findStoredResponse,
  IdempotencyRaceError,
  type IdempotentRequest,
  idempotencyWrite,
} from '../adapters/idempotency-store.js';
import type { SecretCipher } from '../adapters/secret-cipher.js';
import { commitTransaction, type TransactionItem } from '../adapters/transaction.js';
import { ConflictError } from '../domain/errors.js';

/** Whose write it is, and the request's Idempotency-Key (hashed) with a fingerprint of what it asks. */
export interface WriteRequest {
  organisationId: string;
  idempotency?: IdempotentRequest;
}

/** The first response again, or a 409 when the key was used for a different request. */
export async function storedResponseFor(
  request: WriteRequest,
  cipher?: SecretCipher,
): Promise<APIGatewayProxyResult | undefined> {
  const { idempotency } = request;
  if (!idempotency) return undefined;
  const stored = await findStoredResponse(request.organisationId, idempotency.keyHash, cipher);
  if (!stored) return undefined;
  if (stored.fingerprint !== idempotency.fingerprint) {
    throw new ConflictError(
      'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      'idempotency_conflict',
    );
  }
  return { ...stored.response, headers: { ...stored.response.headers, 'Idempotent-Replayed': 'true' } };
}

/**
 * The one write path: commits a change (with its outbox event) and, when the request has an
 * Idempotency-Key, its response in the same transaction. If a concurrent request with the same key
 * won the race, its response is returned.
 */
export async function commitWrite(
  request: WriteRequest,
  items: TransactionItem[],
  response: APIGatewayProxyResult,
  /** For a response that holds a secret: its replayable copy is stored encrypted. */
  cipher?: SecretCipher,
): Promise<APIGatewayProxyResult> {
  const { idempotency } = request;
  const all = idempotency
    ? [...items, await idempotencyWrite(request.organisationId, idempotency, response, cipher)]
    : items;
  // A request that changes no item (it only sends) and has no key to remember: nothing to write.
  if (all.length === 0) return response;
  try {
    await commitTransaction(all);
    return response;
  } catch (error) {
    if (!(error instanceof IdempotencyRaceError)) throw error;
    const replay = await storedResponseFor(request, cipher);
    if (!replay) throw error;
    return replay;
  }
}
