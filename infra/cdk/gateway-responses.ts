import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import {
  PROBLEM_CONTENT_TYPE,
  type Problem,
  problem,
  WWW_AUTHENTICATE_BEARER,
} from '../../shared/http/problem.js';
import { CORS_EXPOSED_HEADERS, type CorsAllowList, gatewayAllowOrigin } from '../../shared/topology/cors.js';

export interface GatewayProblem {
  type: ResponseType;
  body: Problem;
  headers?: Record<string, string>;
}

const INTERNAL_ERROR = 'An unexpected error occurred. Please try again later.';

/**
 * What API Gateway answers by itself (before or instead of a function), in the same problem+json
 * shape as the functions. Every status is fixed so the body's `status` is the one on the wire; 5xx
 * details are generic because `$context.error.message` can describe our configuration.
 */
export const GATEWAY_PROBLEMS: readonly GatewayProblem[] = [
  {
    type: ResponseType.UNAUTHORIZED,
    body: problem(401, 'unauthorized', 'A valid bearer token is required.'),
    headers: { 'WWW-Authenticate': WWW_AUTHENTICATE_BEARER },
  },
  {
    type: ResponseType.ACCESS_DENIED,
    body: problem(403, 'forbidden', 'This token may not call this operation.'),
  },
  // API Gateway's answer for a path with no resource or method is a 403 "Missing Authentication Token".
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    body: problem(404, 'not_found', 'No resource exists at this path.'),
  },
  {
    type: ResponseType.RESOURCE_NOT_FOUND,
    body: problem(404, 'not_found', 'No resource exists at this path.'),
  },
  {
    type: ResponseType.REQUEST_TOO_LARGE,
    body: problem(413, 'payload_too_large', 'The request is too large.'),
  },
  {
    type: ResponseType.UNSUPPORTED_MEDIA_TYPE,
    body: problem(415, 'unsupported_media_type', 'The request body has an unsupported media type.'),
  },
  {
    type: ResponseType.THROTTLED,
    body: problem(429, 'rate_limited', 'Too many requests; retry shortly.'),
    // Stage throttling is a per-second token bucket, so one second is always enough to get a new token.
    headers: { 'Retry-After': '1' },
  },
  { type: ResponseType.BAD_REQUEST_BODY, body: problem(400, 'bad_request', 'The request body is invalid.') },
  {
    type: ResponseType.BAD_REQUEST_PARAMETERS,
    body: problem(400, 'bad_request', 'The request parameters are invalid.'),
  },
  // The authorizer fails (rather than deny) only when it cannot read the table: a transient outage.
  {
    type: ResponseType.AUTHORIZER_FAILURE,
    body: problem(503, 'service_unavailable', 'The service is briefly unavailable. Retry shortly.'),
    headers: { 'Retry-After': '2' },
  },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, body: problem(500, 'internal_error', INTERNAL_ERROR) },
  { type: ResponseType.INTEGRATION_FAILURE, body: problem(502, 'internal_error', INTERNAL_ERROR) },
  {
    type: ResponseType.INTEGRATION_TIMEOUT,
    body: problem(504, 'timeout', 'The request took too long. A write may or may not have taken effect.'),
  },
  {
    type: ResponseType.DEFAULT_4XX,
    body: problem(400, 'bad_request', 'The request could not be processed.'),
  },
  { type: ResponseType.DEFAULT_5XX, body: problem(500, 'internal_error', INTERNAL_ERROR) },
];

/** Gateway and integration response header values are mapping expressions: a literal is single-quoted. */
export function headerLiteral(value: string): string {
  if (value.includes("'")) throw new Error(`A header literal cannot contain a single quote: ${value}`);
  return `'${value}'`;
}

export function gatewayResponseHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const headers = { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store', ...extra };
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, headerLiteral(value)]));
}

/**
 * The CORS headers of a gateway response, as mapping expressions (shared/topology/cors.ts says why
 * several named origins repeat the request's `Origin`): without them a browser shows its script a
 * network error instead of the authorizer's 401 or 403, and the client cannot tell the two apart.
 */
export function gatewayResponseCorsHeaders(list: CorsAllowList): Record<string, string> {
  const rule = gatewayAllowOrigin(list);
  if (rule.kind === 'none') return {};
  return {
    'Access-Control-Allow-Origin':
      rule.kind === 'fixed' ? headerLiteral(rule.value) : 'method.request.header.Origin',
    'Access-Control-Expose-Headers': headerLiteral(CORS_EXPOSED_HEADERS.join(', ')),
    ...(rule.kind === 'request' ? { Vary: headerLiteral('Origin') } : {}),
  };
}
