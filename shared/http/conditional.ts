import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { etagOf, ifNoneMatchHits } from '../domain/etag.js';
import { requestHeader } from './request.js';

/**
 * A JSON representation with a strong ETag, or `304 Not Modified` without a body when the client's
 * `If-None-Match` already names it. `no-cache` lets a client keep the response but makes it ask
 * again each time; `private` and `Vary: Authorization` keep one organisation's figures out of
 * shared caches and apart from another token's.
 */
export function conditionalJson(
  event: APIGatewayProxyEvent,
  body: unknown,
  cacheControl = 'private, no-cache',
): APIGatewayProxyResult {
  const text = JSON.stringify(body);
  const etag = etagOf(text);
  const headers = { ETag: etag, 'Cache-Control': cacheControl, Vary: 'Authorization' };
  if (ifNoneMatchHits(requestHeader(event, 'if-none-match'), etag)) {
    return { statusCode: 304, headers, body: '' };
  }
  return { statusCode: 200, headers: { 'Content-Type': 'application/json', ...headers }, body: text };
}
