import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { IdempotentRequest } from '../adapters/idempotency-store.js';
import type { WriteRequest } from '../app/commit-write.js';
import type { CallerContext } from '../domain/authorizer-policy.js';
import { ValidationError } from '../domain/errors.js';
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

/** What the write path needs to know of a request: the caller's organisation and its Idempotency-Key. */
export function writeRequestOf(event: APIGatewayProxyEvent, caller: CallerContext): WriteRequest {
  const idempotency = idempotentRequestOf(event);
  return { organisationId: caller.organisationId, ...(idempotency ? { idempotency } : {}) };
}
