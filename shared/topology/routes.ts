import type { Scope } from '../domain/token.js';

/**
 * The one route table. The CDK stack builds API Gateway resources, methods and functions from it,
 * the local gateway routes with it, and the scope middleware reads the scope a route needs from it,
 * so the three cannot disagree.
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface RouteSpec {
  method: HttpMethod;
  /**
   * Path under the base path, with `{name}` for a path parameter and, as the last segment only,
   * `{name+}` for a greedy one that takes the rest of the path (API Gateway's proxy resource).
   */
  path: string;
  /** The folder under `functions/` whose `handler.ts` serves the route. */
  functionName: string;
  /** `public`: no token; `any`: any valid token; otherwise the scope the token must hold. */
  access: 'public' | 'any' | Scope;
  summary: string;
}

export const routes = [
  { method: 'GET', path: '/ping', functionName: 'ping', access: 'any', summary: 'Key health probe' },
  {
    method: 'GET',
    path: '/members',
    functionName: 'member-statistics',
    access: 'read',
    summary: 'Anonymised membership statistics',
  },
  {
    method: 'POST',
    path: '/members',
    functionName: 'record-member',
    access: 'write',
    summary: 'Record a member',
  },
  {
    method: 'GET',
    path: '/events',
    functionName: 'upcoming-events',
    access: 'read',
    summary: 'Upcoming public events, soonest first',
  },
  {
    method: 'POST',
    path: '/events',
    functionName: 'publish-event',
    access: 'write',
    summary: 'Publish an event',
  },
  {
    method: 'GET',
    path: '/impact',
    functionName: 'impact-report',
    access: 'read',
    summary: 'The latest published social-impact report',
  },
  {
    method: 'POST',
    path: '/impact',
    functionName: 'publish-impact-report',
    access: 'write',
    summary: 'Publish a social-impact report',
  },
  {
    method: 'GET',
    path: '/openapi.json',
    functionName: 'docs',
    access: 'public',
    summary: 'OpenAPI 3.1 description of this API',
  },
  {
    method: 'GET',
    path: '/docs',
    functionName: 'docs',
    access: 'public',
    summary: 'Interactive API console',
  },
  {
    method: 'GET',
    path: '/docs/{asset+}',
    functionName: 'docs',
    access: 'public',
    summary: 'Files of the interactive console',
  },
  {
    method: 'GET',
    path: '/incidents',
    functionName: 'incidents-list',
    access: 'read',
    summary: 'List incidents, newest first',
  },
  {
    method: 'POST',
    path: '/incidents',
    functionName: 'incident-declare',
    access: 'write',
    summary: 'Declare a data-breach incident',
  },
  {
    method: 'GET',
    path: '/incidents/{id}',
    functionName: 'incident-get',
    access: 'read',
    summary: 'Read an incident with its history',
  },
  {
    method: 'POST',
    path: '/incidents/{id}/contain',
    functionName: 'incident-move',
    access: 'write',
    summary: 'Mark an incident contained',
  },
  {
    method: 'POST',
    path: '/incidents/{id}/notify',
    functionName: 'incident-move',
    access: 'write',
    summary: 'Record the notification of the supervisory authority',
  },
  {
    method: 'POST',
    path: '/incidents/{id}/close',
    functionName: 'incident-move',
    access: 'write',
    summary: 'Close an incident',
  },
  {
    method: 'PATCH',
    path: '/incidents/{id}',
    functionName: 'incident-amend',
    access: 'write',
    summary: 'Change the breach record of an incident',
  },
  {
    method: 'POST',
    path: '/incidents/{id}/authority-updates',
    functionName: 'incident-authority-update',
    access: 'write',
    summary: 'Record a follow-up sent to the supervisory authority',
  },
  {
    method: 'POST',
    path: '/incidents/{id}/data-subject-communication',
    functionName: 'incident-data-subject-communication',
    access: 'write',
    summary: 'Record the decision on telling the people concerned (Art. 34)',
  },
  {
    method: 'GET',
    path: '/incidents/{id}/report',
    functionName: 'incident-report',
    access: 'read',
    summary: 'The notification report for the supervisory authority',
  },
  {
    method: 'GET',
    path: '/breach-register',
    functionName: 'breach-register',
    access: 'read',
    summary: 'The register of every breach, notified or not',
  },
  {
    method: 'GET',
    path: '/webhooks',
    functionName: 'webhooks-list',
    access: 'read',
    summary: 'List webhook endpoints',
  },
  {
    method: 'POST',
    path: '/webhooks',
    functionName: 'webhook-create',
    access: 'write',
    summary: 'Register a webhook endpoint',
  },
  {
    method: 'DELETE',
    path: '/webhooks/{id}',
    functionName: 'webhook-delete',
    access: 'write',
    summary: 'Remove a webhook endpoint',
  },
  {
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    functionName: 'webhook-deliveries-list',
    access: 'read',
    summary: 'Delivery attempts of an endpoint, newest first',
  },
  {
    method: 'GET',
    path: '/webhooks/{id}',
    functionName: 'webhook-get',
    access: 'read',
    summary: 'Read a webhook endpoint with its status',
  },
  {
    method: 'PATCH',
    path: '/webhooks/{id}',
    functionName: 'webhook-update',
    access: 'write',
    summary: 'Change, disable or enable a webhook endpoint',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/test',
    functionName: 'webhook-test',
    access: 'write',
    summary: 'Send a webhook.test event to this endpoint',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    functionName: 'webhook-rotate-secret',
    access: 'write',
    summary: 'Rotate the signing secret, with an overlap',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    functionName: 'webhook-redeliver',
    access: 'write',
    summary: 'Send one delivery again now',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/recover',
    functionName: 'webhook-recover',
    access: 'write',
    summary: 'Send again every failed or skipped delivery since a time',
  },
  {
    method: 'GET',
    path: '/portal',
    functionName: 'docs',
    access: 'public',
    summary: 'The webhooks page: endpoints, deliveries and their controls',
  },
  {
    method: 'POST',
    path: '/contributions',
    functionName: 'contribution-record',
    access: 'write',
    summary: 'Record a received contribution',
  },
  {
    method: 'GET',
    path: '/contributions/{id}',
    functionName: 'contribution-get',
    access: 'read',
    summary: 'Read a contribution',
  },
  {
    method: 'POST',
    path: '/timebank/payouts',
    functionName: 'timebank-payout-settle',
    access: 'write',
    summary: 'Settle a time-bank payout',
  },
  {
    method: 'GET',
    path: '/timebank/payouts/{id}',
    functionName: 'timebank-payout-get',
    access: 'read',
    summary: 'Read a time-bank payout',
  },
  {
    method: 'POST',
    path: '/sanctuary/files',
    functionName: 'sanctuary-file-register',
    access: 'write',
    summary: 'Register a sanctuary file with its expiry',
  },
  {
    method: 'GET',
    path: '/sanctuary/files/{id}',
    functionName: 'sanctuary-file-get',
    access: 'read',
    summary: 'Read a sanctuary file',
  },
] as const satisfies readonly RouteSpec[];

export type Route = (typeof routes)[number];
/** `METHOD /path`: names one operation, e.g. for its OpenAPI description. */
export type RouteKey = KeyOf<Route>;
type KeyOf<R> = R extends { method: infer M extends string; path: infer P extends string }
  ? `${M} ${P}`
  : never;
/** A function that serves routes. */
export type RouteFunctionName = Route['functionName'];

export const routeKey = (route: Route): RouteKey => `${route.method} ${route.path}` as RouteKey;

/** The function that checks bearer tokens for every non-public route. */
export const AUTHORIZER_FUNCTION = 'authorizer' as const;

/** Functions that serve no route: they run from the table stream, the delivery queue or a schedule. */
export const RELAY_FUNCTION = 'outbox-relay' as const;
export const DELIVERY_FUNCTION = 'deliver-webhook' as const;
export const TIMERS_FUNCTION = 'timers' as const;
export const BACKGROUND_FUNCTIONS = [RELAY_FUNCTION, DELIVERY_FUNCTION, TIMERS_FUNCTION] as const;

/** Every function the service deploys: a folder under `functions/`, and the key of its per-function facts. */
export type FunctionName =
  | RouteFunctionName
  | typeof AUTHORIZER_FUNCTION
  | (typeof BACKGROUND_FUNCTIONS)[number];

/** Path parameters when `actualPath` fits `routePath` (both relative to the base path), else undefined. */
export function matchPath(routePath: string, actualPath: string): Record<string, string> | undefined {
  const want = routePath.split('/');
  const got = actualPath.split('/');
  const greedy = /^\{(\w+)\+\}$/.exec(want.at(-1) ?? '')?.[1];
  if (greedy ? got.length < want.length : want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = got[i] ?? '';
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (greedy && i === want.length - 1) {
      const rest = got.slice(i).join('/');
      if (rest === '' || got.slice(i).includes('')) return undefined;
      params[greedy] = decodeURIComponent(rest);
    } else if (param) {
      if (actual === '') return undefined;
      params[param] = decodeURIComponent(actual);
    } else if (segment !== actual) {
      return undefined;
    }
  }
  return params;
}

/**
 * The route a request runs. `HEAD` runs the `GET` route, as HTTP requires: the function answers as
 * for GET and the server sends no body (API Gateway has a HEAD method beside each GET for it).
 */
export function findRoute(method: string, routePath: string): Route | undefined {
  const routeMethod = method === 'HEAD' ? 'GET' : method;
  return routes.find((r) => r.method === routeMethod && r.path === routePath);
}

/**
 * What a resource answers besides its routes' own methods: `HEAD` wherever there is a `GET`, and
 * `OPTIONS` (the CORS preflight) everywhere. Sorted, as the `Allow` header lists them.
 */
export function allowedMethods(routeMethods: readonly string[]): string[] {
  const methods = new Set([...routeMethods, 'OPTIONS']);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

export function functionNames(): RouteFunctionName[] {
  return [...new Set(routes.map((r) => r.functionName))];
}

/** Every function folder the service deploys: route handlers, the authorizer and the background ones. */
export function allFunctionNames(): FunctionName[] {
  return [...functionNames(), AUTHORIZER_FUNCTION, ...BACKGROUND_FUNCTIONS];
}
