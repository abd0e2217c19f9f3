import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { CallerContext } from '../domain/authorizer-policy.js';
import { UnauthorizedError } from '../domain/errors.js';

/** The caller as the TOKEN authorizer described it; API Gateway passes its context on as strings. */
export function callerOf(event: APIGatewayProxyEvent): CallerContext {
  const context = event.requestContext.authorizer ?? {};
  const organisationId = context.organisationId;
  const tokenId = context.tokenId;
  const rateLimitPerMinute = Number(context.rateLimitPerMinute);
  if (typeof organisationId !== 'string' || typeof tokenId !== 'string' || !(rateLimitPerMinute > 0)) {
    throw new UnauthorizedError();
  }
  return { organisationId, tokenId, scopes: String(context.scopes ?? ''), rateLimitPerMinute };
}

export function hasScope(caller: CallerContext, scope: string): boolean {
  return caller.scopes.split(' ').includes(scope);
}
