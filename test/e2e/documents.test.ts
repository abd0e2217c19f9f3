import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseUrl, bodyOf, call, problemOf } from '../support/api.js';

const committed = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'),
);

describe('GET /openapi.json', () => {
  it('is public and serves the committed document, naming this deployment as its server', async () => {
    const response = await call('/openapi.json');
    expect(response.status).toBe(200);
    const served = await bodyOf<Record<string, unknown>>(response);
    expect(served.servers).toEqual([{ url: baseUrl(), description: 'This deployment' }]);
    expect({ ...served, servers: committed.servers }).toEqual(committed);
    const etag = String(response.headers.get('etag'));
    expect((await call('/openapi.json', { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await call('/openapi.json', { method: 'POST' });
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await problemOf(response, 405, 'method_not_allowed');
  });
});

describe('GET /docs', () => {
  it('is public HTML under a strict Content-Security-Policy', async () => {
    const response = await call('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await response.text()).toContain('id="swagger-ui"');
  });

  it("serves the console's files from this origin and nothing outside the allow-list", async () => {
    const base = baseUrl();
    const bundle = await fetch(`${base}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(bundle.headers.get('etag')).toMatch(/^"/);
    await bundle.body?.cancel();
    const missing = await fetch(`${base}/docs/package.json`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('not_found');
  });
});
