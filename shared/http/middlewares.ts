import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { consumeRequest } from '../adapters/rate-limiter.js';
import { BASE_PATH } from '../config.js';
import { DomainError, InsufficientScopeError, RateLimitedError } from '../domain/errors.js';
import type { RateDecision } from '../domain/rate-window.js';
import { logger, MetricUnit, publishMetrics } from '../observability.js';
import { ROUTE_QUERIES } from '../schemas/queries.js';
import { CORS_ENV_VAR, corsResponseHeaders, parseCorsAllowList } from '../topology/cors.js';
import { METRIC } from '../topology/metrics.js';
import { findRoute, type Route, routeKey } from '../topology/routes.js';
import { callerOf, hasScope } from './caller.js';
import { problemForError } from './problem.js';
import { parseQuery, requestHeader } from './request.js';

type ApiRequest = Request<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  Context,
  { rateDecision?: RateDecision }
>;
type ApiMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

/** Every failure becomes problem+json; only unexpected ones are logged, and never with the request's headers. */
export function problemErrors(): ApiMiddleware {
  return {
    onError: (request) => {
      if (!(request.error instanceof DomainError)) {
        logger.error('Unhandled error', { error: request.error, path: request.event.resource });
      }
      request.response = problemForError(request.error);
    },
  };
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}

/**
 * Counts the request against the token's per-minute budget before anything else runs, and puts the
 * `RateLimit-*` headers on whatever the response turns out to be, errors included.
 */
export function rateLimit(): ApiMiddleware {
  const addHeaders = (request: ApiRequest) => {
    const decision = request.internal.rateDecision;
    if (!decision || !request.response) return;
    request.response.headers = { ...request.response.headers, ...rateLimitHeaders(decision) };
  };
  return {
    before: async (request: ApiRequest) => {
      const caller = callerOf(request.event);
      const decision = await consumeRequest(caller.tokenId, caller.rateLimitPerMinute);
      request.internal.rateDecision = decision;
      if (!decision.allowed) {
        publishMetrics((metrics) => metrics.addMetric(METRIC.rateLimitRefusals, MetricUnit.Count, 1));
        throw new RateLimitedError(decision.resetSeconds);
      }
    },
    after: addHeaders,
    onError: addHeaders,
  };
}

/** The route of the route table that API Gateway ran this function for (`HEAD` runs the `GET` route). */
export function routeOf(event: APIGatewayProxyEvent): Route {
  const { httpMethod, resource } = event;
  const route = findRoute(
    httpMethod,
    resource.startsWith(BASE_PATH) ? resource.slice(BASE_PATH.length) : resource,
  );
  if (!route) throw new Error(`No route for ${httpMethod} ${resource}`);
  return route;
}

/** The one scope check: the route table says what each method and path needs. */
export function requireScope(): ApiMiddleware {
  return {
    before: (request) => {
      const route = routeOf(request.event);
      if (route.access === 'read' || route.access === 'write') {
        if (!hasScope(callerOf(request.event), route.access)) throw new InsufficientScopeError(route.access);
      }
    },
  };
}

/** Query parameters the route does not declare (shared/schemas/queries.ts) are refused, on every route. */
export function refuseUndeclaredQuery(): ApiMiddleware {
  return {
    before: (request) => {
      const schema: z.ZodMiniType<unknown> = ROUTE_QUERIES[routeKey(routeOf(request.event))];
      parseQuery(request.event, schema);
    },
  };
}

/** Read at cold start: a malformed allow-list stops the function rather than answering the wrong origins. */
const corsAllowList = parseCorsAllowList(process.env[CORS_ENV_VAR]);

/**
 * `Access-Control-Allow-Origin` and the exposed headers on every answer, errors included, to a
 * browser origin of the allow-list; the preflight is answered by API Gateway (shared/topology/cors.ts).
 */
export function corsHeaders(): ApiMiddleware {
  const addHeaders = (request: ApiRequest) => {
    if (!request.response) return;
    const { Vary: varyOnOrigin, ...headers } = corsResponseHeaders(
      corsAllowList,
      requestHeader(request.event, 'origin'),
    );
    const existing = request.response.headers ?? {};
    // A response that already varies (on Authorization, for its ETag) varies on both.
    const vary = [existing.Vary, varyOnOrigin].filter((v) => v !== undefined && v !== '').join(', ');
    request.response.headers = { ...existing, ...headers, ...(vary ? { Vary: vary } : {}) };
  };
  return { after: addHeaders, onError: addHeaders };
}
