import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  maxHeaderSize,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { BASE_PATH, tokenTag } from '../../shared/config.js';
import { bearerHeaderPattern } from '../../shared/domain/token.js';
import {
  isDependencyUnavailable,
  PROBLEM_CONTENT_TYPE,
  problem,
  problemResponse,
  STATUS_TITLES,
  serviceUnavailableResponse,
  WWW_AUTHENTICATE_BEARER,
} from '../../shared/http/problem.js';
import { logger } from '../../shared/observability.js';
import {
  type CorsAllowList,
  corsResponseHeaders,
  gatewayCorsHeaders,
  preflightHeaders,
} from '../../shared/topology/cors.js';
import { FLUSH_CACHE_PATH } from '../../shared/topology/local-stack.js';
import { allowedMethods, findRoute, matchPath, type Route, routes } from '../../shared/topology/routes.js';
import { AUTHORIZER_CACHE_SECONDS } from '../../shared/topology/timeouts.js';
import { lambdaContext } from './lambda-context.js';
import { policyAllows } from './policy.js';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type TokenAuthorizer = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  handlers: ReadonlyMap<string, ProxyHandler>;
  authorizer: TokenAuthorizer;
  cacheSeconds?: number;
  /** Browser origins that may read answers (`CORS_ALLOW_ORIGINS`); none unless given. */
  corsAllowList?: CorsAllowList;
  /**
   * A custom domain's base path mapping to serve besides the root (`LOCAL_BASE_PATH`), e.g.
   * `membership` for `/membership/api/public/v1`.
   */
  basePath?: string;
}

/**
 * Where a request came in, as API Gateway tells a function: `path` is the request's path without the
 * stage on a stage URL but with the base path on a custom domain (an API Gateway quirk), while
 * `requestContext.path` is always the path the client asked for.
 */
interface Mount {
  /** The path under the base path (`/incidents/…`), or undefined when the request is not for the API. */
  relativePath: string | undefined;
  eventPath: string;
}

function mountOf(pathname: string, basePath: string | undefined): Mount {
  const under = (prefix: string) =>
    pathname.startsWith(`${prefix}${BASE_PATH}/`)
      ? pathname.slice(prefix.length + BASE_PATH.length)
      : undefined;
  // The stage URL, https://{api}.execute-api.{region}.amazonaws.com/{stage}/api/public/v1/…
  const onStage = under(`/${STAGE}`);
  if (onStage !== undefined) return { relativePath: onStage, eventPath: pathname.slice(STAGE.length + 1) };
  // A custom domain with a base path mapping: the base path stays in `path`.
  const onBasePath = basePath ? under(`/${basePath}`) : undefined;
  if (onBasePath !== undefined) return { relativePath: onBasePath, eventPath: pathname };
  // A custom domain mapped at its root (what `npm start` prints).
  return { relativePath: under(''), eventPath: pathname };
}

/** API Gateway's own payload limit for REST APIs. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const ACCOUNT = '000000000000';
const API_ID = 'local';
/** The stage of the local API: it is also served at `/local/api/public/v1`, as on a stage URL. */
export const STAGE = 'local';

interface CachedDecision {
  result: APIGatewayAuthorizerResult;
  expiresAt: number;
}

class BodyTooLarge extends Error {}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(response: ServerResponse, result: APIGatewayProxyResult, requestId: string): void {
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  const body = result.isBase64Encoded
    ? Buffer.from(result.body, 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  headers['Content-Length'] = String(body.length);
  response.writeHead(result.statusCode, headers);
  response.end(body);
}

function findRoutes(relativePath: string): { route: Route; params: Record<string, string> }[] {
  return routes.flatMap((route) => {
    const params = matchPath(route.path, relativePath);
    return params ? [{ route, params }] : [];
  });
}

/**
 * Names and values as a client sent them, as an object of the shape API Gateway's JSON gives a
 * function: own properties only (`Object.fromEntries` defines `__proto__` or `constructor` as
 * plain keys), collected in a Map so that no name can reach a prototype on the way.
 */
function singleAndMulti(pairs: Iterable<[string, string]>) {
  const all = new Map<string, string[]>();
  for (const [name, value] of pairs) all.set(name, [...(all.get(name) ?? []), value]);
  return {
    count: all.size,
    single: Object.fromEntries([...all].map(([name, values]) => [name, values.at(-1) ?? ''])),
    multi: Object.fromEntries(all),
  };
}

/** The headers as Node parsed them (names lowercased, a repeated header's values kept apart). */
function headerPairs(request: IncomingMessage): [string, string][] {
  return Object.entries(request.headers).flatMap(([name, value]) =>
    value === undefined
      ? []
      : (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]),
  );
}

/** What Node's parser refused before a request existed (a request line or headers too large, bad HTTP). */
const CLIENT_ERRORS: ReadonlyMap<string | undefined, { status: number; code: string; detail: string }> =
  new Map([
    [
      'HPE_HEADER_OVERFLOW',
      {
        status: 431,
        code: 'headers_too_large',
        detail: `The request line and headers must be at most ${maxHeaderSize / 1024} KB together.`,
      },
    ],
    [
      'ERR_HTTP_REQUEST_TIMEOUT',
      { status: 408, code: 'request_timeout', detail: 'The request was not received in time.' },
    ],
  ]);

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const known = CLIENT_ERRORS.get(error.code) ?? {
    status: 400,
    code: 'bad_request',
    detail: 'The request is not valid HTTP/1.1.',
  };
  const body = JSON.stringify(problem(known.status, known.code, known.detail));
  socket.end(
    [
      `HTTP/1.1 ${known.status} ${STATUS_TITLES[known.status] ?? 'Error'}`,
      `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
      'Cache-Control: no-store',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/**
 * The local stand-in for API Gateway: the same route table, the same 404/405/401/403 answers as
 * the gateway responses on AWS, the TOKEN authorizer called with API Gateway's rules (identity
 * validation expression, policy evaluation, decision cache), and proxy events of the real shape.
 */
export function createGateway(options: GatewayOptions): Server & { flushAuthorizerCache(): void } {
  const cache = new Map<string, CachedDecision>();
  const cacheMs = (options.cacheSeconds ?? AUTHORIZER_CACHE_SECONDS) * 1000;
  const cors = options.corsAllowList ?? { kind: 'none' };
  const headerPattern = new RegExp(bearerHeaderPattern(tokenTag()));

  async function authorize(
    header: string | undefined,
    methodArn: string,
  ): Promise<APIGatewayAuthorizerResult | 401> {
    if (header === undefined || !headerPattern.test(header)) return 401;
    const cached = cache.get(header);
    if (cached && cached.expiresAt > Date.now()) return cached.result;
    try {
      const result = await options.authorizer({ type: 'TOKEN', authorizationToken: header, methodArn });
      cache.set(header, { result, expiresAt: Date.now() + cacheMs });
      return result;
    } catch (error) {
      if (error instanceof Error && error.message === 'Unauthorized') return 401;
      throw error;
    }
  }

  /** An answer API Gateway makes itself: a gateway response, with its CORS headers. */
  function gatewayAnswer(
    request: IncomingMessage,
    body: ReturnType<typeof problem>,
    headers: Record<string, string> = {},
  ): APIGatewayProxyResult {
    return problemResponse(body, { ...gatewayCorsHeaders(cors, request.headers.origin), ...headers });
  }

  async function handle(request: IncomingMessage, requestId: string): Promise<APIGatewayProxyResult> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    if (url.pathname === FLUSH_CACHE_PATH && method === 'DELETE') {
      cache.clear();
      return { statusCode: 204, body: '' };
    }
    const { relativePath, eventPath } = mountOf(url.pathname, options.basePath);
    const candidates = relativePath === undefined ? [] : findRoutes(relativePath);
    const [first] = candidates;
    if (!first) return gatewayAnswer(request, problem(404, 'not_found', `No resource at ${url.pathname}.`));
    const allow = allowedMethods(candidates.map((c) => c.route.method));
    // The CORS preflight and the 405 are MOCK integrations on AWS (infra/cdk/constructs/public-api.ts).
    if (method === 'OPTIONS') {
      return { statusCode: 204, headers: preflightHeaders(cors, request.headers.origin, allow), body: '' };
    }
    const route = findRoute(method, first.route.path);
    const match = route && candidates.find((c) => c.route === route);
    if (!match) {
      return problemResponse(
        problem(405, 'method_not_allowed', `${method} is not allowed here; use ${allow.join(', ')}.`),
        { Allow: allow.join(', '), ...corsResponseHeaders(cors, request.headers.origin) },
      );
    }

    const resource = `${BASE_PATH}${match.route.path}`;
    const methodArn = `arn:aws:execute-api:local:${ACCOUNT}:${API_ID}/${STAGE}/${method}${resource}`;
    let authorizerContext: APIGatewayProxyEvent['requestContext']['authorizer'] = null;
    if (match.route.access !== 'public') {
      const decision = await authorize(request.headers.authorization, methodArn);
      if (decision === 401) {
        return gatewayAnswer(request, problem(401, 'unauthorized', 'A valid bearer token is required.'), {
          'WWW-Authenticate': WWW_AUTHENTICATE_BEARER,
        });
      }
      if (!policyAllows(decision.policyDocument, methodArn)) {
        return gatewayAnswer(request, problem(403, 'forbidden', 'This token may not call this resource.'));
      }
      authorizerContext = { ...decision.context, principalId: decision.principalId };
    }

    const body = await readBody(request);
    const headers = singleAndMulti(headerPairs(request));
    const query = singleAndMulti(url.searchParams);
    const params = new Map(Object.entries(match.params));
    const event: APIGatewayProxyEvent = {
      resource,
      path: eventPath,
      httpMethod: method,
      headers: Object.fromEntries(
        Object.entries(headers.multi).map(([name, values]) => [name, values.join(',')]),
      ),
      multiValueHeaders: headers.multi,
      queryStringParameters: query.count > 0 ? query.single : null,
      multiValueQueryStringParameters: query.count > 0 ? query.multi : null,
      pathParameters: params.size > 0 ? Object.fromEntries(params) : null,
      stageVariables: null,
      body: body.length > 0 ? body.toString('utf8') : null,
      isBase64Encoded: false,
      requestContext: {
        accountId: ACCOUNT,
        apiId: API_ID,
        authorizer: authorizerContext,
        httpMethod: method,
        identity: {
          sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
          userAgent: request.headers['user-agent'] ?? null,
          accessKey: null,
          accountId: null,
          apiKey: null,
          apiKeyId: null,
          caller: null,
          clientCert: null,
          cognitoAuthenticationProvider: null,
          cognitoAuthenticationType: null,
          cognitoIdentityId: null,
          cognitoIdentityPoolId: null,
          principalOrgId: null,
          user: null,
          userArn: null,
        },
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: match.route.functionName,
        resourcePath: resource,
        stage: STAGE,
      },
    };
    const handler = options.handlers.get(match.route.functionName);
    if (!handler) throw new Error(`No handler loaded for ${match.route.functionName}`);
    return handler(event, lambdaContext(match.route.functionName));
  }

  const server = createServer((request, response) => {
    const requestId = randomUUID();
    const started = performance.now();
    handle(request, requestId)
      .catch((error: unknown) => {
        if (error instanceof BodyTooLarge) {
          return gatewayAnswer(
            request,
            problem(413, 'payload_too_large', 'The request body is larger than 10 MB.'),
          );
        }
        // An authorizer that cannot reach the table: AUTHORIZER_FAILURE, a 503 on AWS too.
        if (isDependencyUnavailable(error)) {
          const unavailable = serviceUnavailableResponse();
          return {
            ...unavailable,
            headers: { ...unavailable.headers, ...gatewayCorsHeaders(cors, request.headers.origin) },
          };
        }
        // On AWS an unhandled error is a 5xx gateway response: generic, never the error itself. The
        // gateway is no function: its own failures are logged as the gateway's, under no function name.
        logger.error('Local gateway failed', { error, requestId, component: 'local-gateway' });
        return gatewayAnswer(
          request,
          problem(500, 'internal_error', 'An unexpected error occurred. Please try again later.'),
        );
      })
      .then((result) => {
        send(response, result, requestId);
        logger.debug('request', {
          method: request.method,
          path: request.url?.split('?')[0],
          status: result.statusCode,
          ms: Math.round(performance.now() - started),
        });
      });
  });
  // A request line or headers beyond Node's limit never become a request: answer them as problems too.
  server.on('clientError', answerClientError);
  return Object.assign(server, { flushAuthorizerCache: () => cache.clear() });
}
