import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { etagOf, ifNoneMatchHits } from '../../shared/domain/etag.js';
import { conditionalJson } from '../../shared/http/conditional.js';

const request = (headers: Record<string, string> = {}) => ({ headers }) as unknown as APIGatewayProxyEvent;

describe('ETag', () => {
  it('is a strong, quoted tag that changes with the body', () => {
    expect(etagOf('{"a":1}')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(etagOf('{"a":1}')).toBe(etagOf('{"a":1}'));
    expect(etagOf('{"a":1}')).not.toBe(etagOf('{"a":2}'));
  });

  it('matches If-None-Match by weak comparison, in lists, and for *', () => {
    const tag = etagOf('x');
    expect(ifNoneMatchHits(tag, tag)).toBe(true);
    expect(ifNoneMatchHits(`W/${tag}`, tag)).toBe(true);
    expect(ifNoneMatchHits(`"other", ${tag}`, tag)).toBe(true);
    expect(ifNoneMatchHits('*', tag)).toBe(true);
    expect(ifNoneMatchHits('"other"', tag)).toBe(false);
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
  });
});

describe('conditionalJson', () => {
  it('answers 200 with the ETag, private revalidation and Vary: Authorization', () => {
    const response = conditionalJson(request(), { a: 1 });
    expect(response).toMatchObject({ statusCode: 200, body: '{"a":1}' });
    expect(response.headers).toMatchObject({
      'Content-Type': 'application/json',
      ETag: etagOf('{"a":1}'),
      'Cache-Control': 'private, no-cache',
      Vary: 'Authorization',
    });
  });

  it('answers 304 without a body when the client holds the current representation', () => {
    const etag = etagOf('{"a":1}');
    const response = conditionalJson(request({ 'If-None-Match': etag }), { a: 1 });
    expect(response.statusCode).toBe(304);
    expect(response.body).toBe('');
    expect(response.headers?.ETag).toBe(etag);
    expect(conditionalJson(request({ 'if-none-match': etag }), { a: 2 }).statusCode).toBe(200);
  });
});
