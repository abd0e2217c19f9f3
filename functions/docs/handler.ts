import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import document from '../../docs/openapi.json' with { type: 'json' };
import { BASE_PATH } from '../../shared/config.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { etagOf, ifNoneMatchHits } from '../../shared/domain/etag.js';
import { corsHeaders, problemErrors, refuseUndeclaredQuery } from '../../shared/http/middlewares.js';
import { requestHeader } from '../../shared/http/request.js';
import { logger } from '../../shared/observability.js';
import {
  CONSOLE_SCRIPT,
  CONSOLE_SCRIPT_NAME,
  CONSOLE_SECURITY_HEADERS,
  consolePage,
  SWAGGER_UI_FILES,
} from './console.js';
import { PORTAL_SCRIPT, PORTAL_SCRIPT_NAME, PORTAL_STYLE, PORTAL_STYLE_NAME, portalPage } from './portal.js';

/**
 * Swagger UI's files: copied next to the bundle on AWS (see the docs function's bundling), read from
 * node_modules when the handler runs from source. They are read on first request, not at start-up,
 * so the 1.7 MB bundle of Swagger UI costs the function's cold start nothing.
 */
const ASSET_DIRS = [
  new URL('./swagger-ui/', import.meta.url),
  new URL('../../node_modules/swagger-ui-dist/', import.meta.url),
];
const assetDir = ASSET_DIRS.map((url) => fileURLToPath(url)).find((dir) => existsSync(dir));
const assetCache = new Map<string, Promise<Representation>>();
/** By the name the client asked for: a Map, so that `constructor` or `__proto__` is just another unknown file. */
const assetTypes = new Map(Object.entries(SWAGGER_UI_FILES));

/** The last document served: every request to one deployment names the same server, so it is built once. */
let lastDocument: { server: string; representation: Representation } | undefined;

/** The document as generated at build time, with this deployment's own address as its server. */
function documentFor(server: string): Representation {
  if (lastDocument?.server !== server) {
    const body = JSON.stringify({ ...document, servers: [{ url: server, description: 'This deployment' }] });
    lastDocument = {
      server,
      representation: { body, contentType: 'application/json', cacheControl: 'no-cache', etag: etagOf(body) },
    };
  }
  return lastDocument.representation;
}

/** `etag` is given for a large static file, so that it is hashed once per cold start, not per request. */
type Representation = { body: string; contentType: string; cacheControl: string; etag?: string };

/** `{stage}/api/public/v1` as the browser sees it: the request path without the route's own part. */
function basePathOf(event: APIGatewayProxyEvent): string {
  const path = event.requestContext.path || event.path;
  const index = path.lastIndexOf(BASE_PATH);
  return index >= 0 ? path.slice(0, index + BASE_PATH.length) : BASE_PATH;
}

/** The origin from the Host header, when it is a plain host name; otherwise the server URL stays relative. */
function originOf(event: APIGatewayProxyEvent): string | undefined {
  const host = requestHeader(event, 'host');
  if (!host || !/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host)) return undefined;
  const forwarded = requestHeader(event, 'x-forwarded-proto');
  const scheme =
    forwarded === 'https' || forwarded === 'http'
      ? forwarded
      : /^(localhost|127\.0\.0\.1)(:|$)/.test(host)
        ? 'http'
        : 'https';
  return `${scheme}://${host}`;
}

async function asset(name: string): Promise<Representation> {
  if (name === CONSOLE_SCRIPT_NAME) {
    return { body: CONSOLE_SCRIPT, contentType: 'text/javascript; charset=utf-8', cacheControl: 'no-cache' };
  }
  if (name === PORTAL_SCRIPT_NAME) {
    return { body: PORTAL_SCRIPT, contentType: 'text/javascript; charset=utf-8', cacheControl: 'no-cache' };
  }
  if (name === PORTAL_STYLE_NAME) {
    return { body: PORTAL_STYLE, contentType: 'text/css; charset=utf-8', cacheControl: 'no-cache' };
  }
  const contentType = assetTypes.get(name);
  if (!contentType || !assetDir) throw new NotFoundError(`Console file ${name}`);
  let cached = assetCache.get(name);
  if (!cached) {
    cached = readFile(`${assetDir}${name}`, 'utf8').then((body) => ({
      body,
      contentType,
      cacheControl: 'public, max-age=3600',
      etag: etagOf(body),
    }));
    // A failed read is not remembered: the next request tries again.
    cached.catch(() => assetCache.delete(name));
    assetCache.set(name, cached);
  }
  return cached;
}

const representations = new Map<string, (event: APIGatewayProxyEvent) => Promise<Representation>>([
  ['/openapi.json', async (event) => documentFor(`${originOf(event) ?? ''}${basePathOf(event)}`)],
  [
    '/docs',
    async (event) => ({
      body: consolePage(basePathOf(event)),
      contentType: 'text/html; charset=utf-8',
      cacheControl: 'no-cache',
    }),
  ],
  ['/docs/{asset+}', (event) => asset(event.pathParameters?.asset ?? '')],
  [
    '/portal',
    async (event) => ({
      body: portalPage(basePathOf(event)),
      contentType: 'text/html; charset=utf-8',
      cacheControl: 'no-cache',
    }),
  ],
]);

/** Public and unauthenticated: the OpenAPI document, the console and webhooks pages and their files. */
export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(logger, { logEvent: false }))
  .use(corsHeaders())
  .use(problemErrors())
  .use(refuseUndeclaredQuery())
  .handler(async (event) => {
    const route = event.resource.startsWith(BASE_PATH)
      ? event.resource.slice(BASE_PATH.length)
      : event.resource;
    const represent = representations.get(route);
    if (!represent) throw new NotFoundError(`Resource ${route}`);
    const { body, contentType, cacheControl, etag = etagOf(body) } = await represent(event);
    const headers = { ...CONSOLE_SECURITY_HEADERS, ETag: etag, 'Cache-Control': cacheControl };
    if (ifNoneMatchHits(requestHeader(event, 'if-none-match'), etag))
      return { statusCode: 304, headers, body: '' };
    return { statusCode: 200, headers: { ...headers, 'Content-Type': contentType }, body };
  });
