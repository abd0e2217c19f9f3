import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { SecretCipher } from '../adapters/secret-cipher.js';
import { storedResponseFor } from '../app/commit-write.js';
import type { CallerContext } from '../domain/authorizer-policy.js';
import { callerOf } from './caller.js';
import { writeRequestOf } from './idempotency.js';
import { problemErrors, rateLimit, requireScope } from './middlewares.js';

export type ApiFunction = (
  event: APIGatewayProxyEvent,
  caller: CallerContext,
) => Promise<APIGatewayProxyResult>;

/**
 * The chain every authenticated endpoint runs: rate limit first (every authenticated request counts
 * and every response carries the headers), then problem mapping, then the route's scope, then
 * the replay of an idempotent POST that was already answered.
 */
export interface ApiHandlerOptions {
  /** Decrypts a replayed response stored encrypted (the route's responses hold a secret). */
  cipher?: () => SecretCipher;
}

export function apiHandler(fn: ApiFunction, options: ApiHandlerOptions = {}) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(rateLimit())
    .use(problemErrors())
    .use(requireScope())
    .handler(async (event) => {
      const caller = callerOf(event);
      // A POST repeated with its Idempotency-Key gets the first response and changes nothing.
      return (
        (await storedResponseFor(writeRequestOf(event, caller), options.cipher?.())) ?? fn(event, caller)
      );
    });
}
