import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import document from '../../docs/openapi.json' with { type: 'json' };
import { handler } from '../../functions/docs/handler.js';
import { lambdaContext } from '../../infra/local/lambda-context.js';
import { BASE_PATH } from '../../shared/config.js';

function get(resource: string, path: string, headers: Record<string, string> = {}, asset?: string) {
  const event = {
    resource: `${BASE_PATH}${resource}`,
    path,
    httpMethod: 'GET',
    headers,
    pathParameters: asset ? { asset } : null,
    requestContext: { path },
  } as unknown as APIGatewayProxyEvent;
  return handler(event, lambdaContext('docs')) as Promise<APIGatewayProxyResult>;
}

describe('GET /openapi.json', () => {
  it('serves the generated document with the address it was fetched from as its only server', async () => {
    const response = await get('/openapi.json', `/prod${BASE_PATH}/openapi.json`, {
      Host: 'a1b2c3.execute-api.eu-central-1.amazonaws.com',
      'X-Forwarded-Proto': 'https',
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['Content-Type']).toBe('application/json');
    const served = JSON.parse(response.body);
    expect(served.servers).toEqual([
      {
        url: `https://a1b2c3.execute-api.eu-central-1.amazonaws.com/prod${BASE_PATH}`,
        description: 'This deployment',
      },
    ]);
    expect({ ...served, servers: document.servers }).toEqual(document);
  });

  it('keeps the server relative when the Host header is not a plain host name', async () => {
    const response = await get('/openapi.json', `${BASE_PATH}/openapi.json`, {
      Host: 'evil.example/"><script>',
    });
    expect(JSON.parse(response.body).servers[0].url).toBe(BASE_PATH);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await get('/openapi.json', `${BASE_PATH}/openapi.json`, { Host: 'localhost:3000' });
    const etag = String(first.headers?.ETag);
    const second = await get('/openapi.json', `${BASE_PATH}/openapi.json`, {
      Host: 'localhost:3000',
      'If-None-Match': etag,
    });
    expect(second).toMatchObject({ statusCode: 304, body: '' });
  });
});

describe('GET /docs', () => {
  it('is a page of own assets only, under a strict Content-Security-Policy', async () => {
    const response = await get('/docs', `/dev${BASE_PATH}/docs`);
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['Content-Type']).toBe('text/html; charset=utf-8');
    const csp = String(response.headers?.['Content-Security-Policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(response.headers).toMatchObject({
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    });
    // No inline script, and every URL in the page is under this API's base path.
    expect(response.body).not.toMatch(/<script>(?!<)/);
    const urls = [...response.body.matchAll(/(?:src|href|data-openapi-url)="([^"]*)"/g)].map((m) => m[1]);
    expect(urls).toEqual([
      'data:,',
      `/dev${BASE_PATH}/docs/swagger-ui.css`,
      `/dev${BASE_PATH}/openapi.json`,
      `/dev${BASE_PATH}/docs/swagger-ui-bundle.js`,
      `/dev${BASE_PATH}/docs/console.js`,
    ]);
  });

  it("serves Swagger UI's files and the start-up script with their types, and nothing else", async () => {
    const bundle = await get(
      '/docs/{asset+}',
      `${BASE_PATH}/docs/swagger-ui-bundle.js`,
      {},
      'swagger-ui-bundle.js',
    );
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers?.['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(bundle.body.length).toBeGreaterThan(500_000);
    const css = await get('/docs/{asset+}', `${BASE_PATH}/docs/swagger-ui.css`, {}, 'swagger-ui.css');
    expect(css.headers?.['Content-Type']).toBe('text/css; charset=utf-8');
    const script = await get('/docs/{asset+}', `${BASE_PATH}/docs/console.js`, {}, 'console.js');
    expect(script.body).toContain('validatorUrl: null');
    expect(script.body).toContain('queryConfigEnabled: false');
    for (const name of ['index.html', '../package.json', 'swagger-ui-bundle.js.map', '..%2Fpackage.json']) {
      const response = await get('/docs/{asset+}', `${BASE_PATH}/docs/${name}`, {}, name);
      expect(response.statusCode, name).toBe(404);
      expect(JSON.parse(response.body).code).toBe('not_found');
    }
  });
});
