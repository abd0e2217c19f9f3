import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { IdempotentRequest } from '../adapters/idempotency-store.js';
import type { WriteRequest } from '../app/commit-write.js';
import type { CallerContext } from '../domain/authorizer-policy.js';
import { ValidationError } from '../domain/errors.js';
import { canonicalBody, requestHeader } from './request.js';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key and a fingerprint of what it asks. The key is hashed (keys are client
 * data) together with the token that sent it: a key is the token's own, so another token, even of the
 * same organisation, can never be answered with a stored response (which may hold a signing secret).
 */
export function idempotentRequestOf(
  event: APIGatewayProxyEvent,
  tokenId: string,
): IdempotentRequest | undefined {
  if (event.httpMethod !== 'POST') return undefined;
  const key = requestHeader(event, 'idempotency-key');
  if (key === undefined) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new ValidationError([
      { field: 'Idempotency-Key', message: 'Use 1 to 255 visible ASCII characters, such as a UUID.' },
    ]);
  }
  // The parsed body, not its bytes: the same JSON with other spacing or key order is a replay.
  const fingerprint = createHash('sha256')
    .update(`${event.httpMethod} ${event.path}\n${canonicalBody(event)}`)
    .digest('hex');
  return { keyHash: createHash('sha256').update(`${tokenId}\n${key}`).digest('hex'), fingerprint };
}

/** What the write path needs to know of a request: the caller's organisation and its Idempotency-Key. */
export function writeRequestOf(event: APIGatewayProxyEvent, caller: CallerContext): WriteRequest {
  const idempotency = idempotentRequestOf(event, caller.tokenId);
  return { organisationId: caller.organisationId, ...(idempotency ? { idempotency } : {}) };
}
