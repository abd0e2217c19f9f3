/**
 * Cross-origin access for browsers, read by the functions, the local gateway and the CDK stack, so
 * that a preflight, a function's answer and an answer API Gateway makes itself all agree.
 *
 * The allow-list comes from `CORS_ALLOW_ORIGINS` (the local stack, and the functions on AWS) or the
 * CDK context value `corsAllowOrigins` (`cdk deploy -c corsAllowOrigins=https://a.example,…`), in
 * one format: origins separated by commas, or `*` for any. Empty by default: no browser origin may
 * read an answer until an operator names one.
 */

/** The environment variable (functions, local stack) and the CDK context key holding the allow-list. */
export const CORS_ENV_VAR = 'CORS_ALLOW_ORIGINS';
export const CORS_CONTEXT_KEY = 'corsAllowOrigins';

/** Every request header the API reads, besides the ones a browser may always send. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-None-Match',
  'If-Match',
] as const;

/** Response headers a browser client needs to read; the others of a CORS response stay hidden from scripts. */
export const CORS_EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'ETag',
  'Location',
  'Idempotent-Replayed',
  'WWW-Authenticate',
] as const;

/** How long a browser may reuse a preflight answer (Chromium caps it at two hours). */
export const CORS_MAX_AGE_SECONDS = 600;

export type CorsAllowList = { kind: 'none' } | { kind: 'any' } | { kind: 'origins'; origins: string[] };

const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** The allow-list from its one format; a malformed entry fails at start-up or synth, never at a request. */
export function parseCorsAllowList(value: string | undefined): CorsAllowList {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return { kind: 'none' };
  if (entries.includes('*')) {
    if (entries.length > 1) throw new Error(`${CORS_ENV_VAR}: "*" cannot be combined with named origins.`);
    return { kind: 'any' };
  }
  for (const entry of entries) {
    if (!ORIGIN.test(entry)) {
      throw new Error(
        `${CORS_ENV_VAR}: "${entry}" is not an origin (scheme://host[:port], no path or trailing slash).`,
      );
    }
  }
  return { kind: 'origins', origins: [...new Set(entries.map((entry) => entry.toLowerCase()))] };
}

/** The value of `Access-Control-Allow-Origin` for a request from `origin`, or undefined when it may not read. */
export function allowedOrigin(list: CorsAllowList, origin: string | undefined): string | undefined {
  if (list.kind === 'any') return '*';
  if (list.kind === 'none' || origin === undefined) return undefined;
  return list.origins.includes(origin.toLowerCase()) ? origin : undefined;
}

/** What an actual (not preflight) response carries for a request from `origin`. */
export function corsResponseHeaders(list: CorsAllowList, origin: string | undefined): Record<string, string> {
  const allowed = allowedOrigin(list, origin);
  const vary: Record<string, string> = list.kind === 'origins' ? { Vary: 'Origin' } : {};
  if (!allowed) return vary;
  return {
    'Access-Control-Allow-Origin': allowed,
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
    ...vary,
  };
}

/** The answer to a preflight (`OPTIONS`) of a resource that supports `methods`: a 204 either way. */
export function preflightHeaders(
  list: CorsAllowList,
  origin: string | undefined,
  methods: readonly string[],
): Record<string, string> {
  const allowed = allowedOrigin(list, origin);
  return {
    Allow: methods.join(', '),
    ...(list.kind === 'origins' ? { Vary: 'Origin' } : {}),
    ...(allowed
      ? {
          'Access-Control-Allow-Origin': allowed,
          'Access-Control-Allow-Methods': methods.join(', '),
          'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
          'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
        }
      : {}),
  };
}

/**
 * `Access-Control-Allow-Origin` on the answers API Gateway makes itself (the authorizer's 401 and
 * 403, an unknown path, throttling, 5xx). A gateway response can only send a fixed value or a
 * request header, not choose: so with several named origins it repeats the request's `Origin`.
 * Those answers are the same generic problems for every caller, and a disallowed origin never gets
 * past the preflight of a request carrying a token, so nothing is read that the allow-list protects.
 */
export type GatewayAllowOrigin = { kind: 'none' } | { kind: 'fixed'; value: string } | { kind: 'request' };

export function gatewayAllowOrigin(list: CorsAllowList): GatewayAllowOrigin {
  if (list.kind === 'none') return { kind: 'none' };
  if (list.kind === 'any') return { kind: 'fixed', value: '*' };
  const [only, ...more] = list.origins;
  return only !== undefined && more.length === 0 ? { kind: 'fixed', value: only } : { kind: 'request' };
}

/** The CORS headers of an answer API Gateway makes itself, as the local gateway sends them too. */
export function gatewayCorsHeaders(list: CorsAllowList, origin: string | undefined): Record<string, string> {
  const rule = gatewayAllowOrigin(list);
  const value = rule.kind === 'fixed' ? rule.value : rule.kind === 'request' ? origin : undefined;
  if (!value) return {};
  return {
    'Access-Control-Allow-Origin': value,
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
    ...(rule.kind === 'request' ? { Vary: 'Origin' } : {}),
  };
}
