import type { Scope } from './domain/token.js';

/**
 * The one route table. The CDK stack builds API Gateway resources, methods and functions from it,
 * the local gateway routes with it, and the scope middleware reads the scope a route needs from it,
 * so the three cannot disagree.
 */
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** Path under the base path, with `{name}` for a path parameter. */
  path: string;
  /** The folder under `functions/` whose `handler.ts` serves the route. */
  functionName: string;
  /** `public`: no token; `any`: any valid token; otherwise the scope the token must hold. */
  access: 'public' | 'any' | Scope;
  summary: string;
}

export const routes: readonly Route[] = [
  { method: 'GET', path: '/ping', functionName: 'ping', access: 'any', summary: 'Key health probe' },
];

/** The function that checks bearer tokens for every non-public route. */
export const AUTHORIZER_FUNCTION = 'authorizer';

/** Path parameters when `actualPath` fits `routePath` (both relative to the base path), else undefined. */
export function matchPath(routePath: string, actualPath: string): Record<string, string> | undefined {
  const want = routePath.split('/');
  const got = actualPath.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = got[i] ?? '';
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (param) {
      if (actual === '') return undefined;
      params[param] = decodeURIComponent(actual);
    } else if (segment !== actual) {
      return undefined;
    }
  }
  return params;
}

export function findRoute(method: string, routePath: string): Route | undefined {
  return routes.find((r) => r.method === method && r.path === routePath);
}

export function functionNames(): string[] {
  return [...new Set(routes.map((r) => r.functionName))];
}
