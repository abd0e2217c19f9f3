import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { SecretCipher } from '../adapters/secret-cipher.js';
import { storedResponseFor } from '../app/commit-write.js';
import type { CallerContext } from '../domain/authorizer-policy.js';
import { logger } from '../observability.js';
import { callerOf } from './caller.js';
import { writeRequestOf } from './idempotency.js';
import { corsHeaders, problemErrors, rateLimit, refuseUndeclaredQuery, requireScope } from './middlewares.js';

export type ApiFunction = (
  event: APIGatewayProxyEvent,
  caller: CallerContext,
) => Promise<APIGatewayProxyResult>;

/**
 * The chain every authenticated endpoint runs: the function's name on its log lines (never the
 * event: it holds the bearer token), CORS headers on whatever the answer is, the rate limit (every
 * authenticated request counts and every response carries the headers), problem mapping, the
 * route's scope and query parameters, then the replay of an idempotent POST already answered.
 */
export interface ApiHandlerOptions {
  /** Decrypts a replayed response stored encrypted (the route's responses hold a secret). */
  cipher?: () => SecretCipher;
}

export function apiHandler(fn: ApiFunction, options: ApiHandlerOptions = {}) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(injectLambdaContext(logger, { logEvent: false }))
    .use(corsHeaders())
    .use(rateLimit())
    .use(problemErrors())
    .use(requireScope())
    .use(refuseUndeclaredQuery())
    .handler(async (event) => {
      const caller = callerOf(event);
      // A POST repeated with its Idempotency-Key gets the first response and changes nothing.
      return (
        (await storedResponseFor(writeRequestOf(event, caller), options.cipher?.())) ?? fn(event, caller)
      );
    });
}
