import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../../shared/topology/cors.js';
import { allowedMethods, routes } from '../../shared/topology/routes.js';
import {
  baseUrl,
  bodyOf,
  call,
  declareIncident,
  postJson,
  problemOf,
  unthrottledOrganisation,
} from '../support/api.js';
import { E2E_CORS_ORIGINS } from '../support/local-stack.setup.js';

/**
 * How the service answers requests whatever their shape: every route, public ones included, with a
 * query it does not declare, HEAD and OPTIONS, oversized headers, browser origins, and request bodies
 * of every kind. None may get a 5xx, and every refusal is a problem with its own code.
 */
let writer: string;

beforeAll(async () => {
  ({ writer } = await unthrottledOrganisation());
});

/** A concrete path for a route: its `{id}` an id nobody has, the console's files a real one. */
const concrete = (path: string) => path.replace('{id}', randomUUID()).replace('{asset+}', 'swagger-ui.css');

/**
 * `call` (checked against the document), except for the console's files, which the document leaves
 * out: those are sent as they are.
 */
function send(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  if (!path.startsWith('/docs/')) return call(path, init);
  const { token, headers, ...rest } = init;
  return fetch(`${baseUrl()}${path}`, {
    ...rest,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(headers as Record<string, string>),
    },
  });
}

/** Each path of the route table once, with its methods. */
const resources = [...new Set(routes.map((r) => r.path))].map((path) => ({
  path,
  methods: routes.filter((r) => r.path === path).map((r) => r.method),
}));

describe('query parameters', () => {
  // Names of Object.prototype's members, which once reached a plain object's prototype (500).
  const names = ['unknown', 'constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty'];

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    'are refused with 400 naming each undeclared one on %s, never a 500',
    async (_, route) => {
      for (const name of names) {
        const response = await send(`${concrete(route.path)}?${encodeURIComponent(name)}=1`, {
          method: route.method,
          token: writer,
        });
        const problem = await problemOf(response, 400, 'validation_failed');
        expect(problem.errors).toContainEqual({
          field: `query.${name}`,
          message: 'Unknown query parameter.',
        });
      }
    },
  );

  it('say what `limit` takes, without a regular expression', async () => {
    for (const path of ['/incidents', '/webhooks', `/webhooks/${randomUUID()}/deliveries`, '/events']) {
      for (const limit of ['abc', '0', '101', '1.5', '1e1']) {
        const problem = await problemOf(
          await call(`${path}?limit=${limit}`, { token: writer }),
          400,
          'validation_failed',
        );
        expect(problem.errors, `${path}?limit=${limit}`).toEqual([
          { field: 'query.limit', message: 'Use a whole number from 1 to 100.' },
        ]);
      }
    }
  });
});

describe('a client name as a path segment', () => {
  it.each(['constructor', '__proto__', 'toString'])('is just an unknown console file: %s', async (name) => {
    await problemOf(await call(`/docs/${name}`), 404, 'not_found');
  });
});

/** Sends a raw request through node:http, which, unlike fetch, sends any URL and header as given. */
function rawRequest(path: string, headers: Record<string, string> = {}) {
  const url = new URL(`${baseUrl()}${path}`);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: url.port, path: `${url.pathname}${url.search}`, headers },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

describe('a request line or headers over 16 KB', () => {
  it.each([
    ['a URL', () => rawRequest(`/ping?padding=${'a'.repeat(17 * 1024)}`)],
    ['a header', () => rawRequest('/ping', { 'X-Padding': 'a'.repeat(17 * 1024) })],
  ])('is answered 431 problem+json for %s', async (_, send) => {
    const response = await send();
    expect(response.status).toBe(431);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(response.body)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });
});

describe('HEAD', () => {
  const gets = routes.filter((r) => r.method === 'GET');

  it.each(gets.map((r) => [r.path] as const))('on %s is answered as GET without a body', async (path) => {
    const url = concrete(path);
    const get = await send(url, { token: writer });
    const head = await send(url, { method: 'HEAD', token: writer });
    expect(head.status, url).toBe(get.status);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(await get.text())));
    expect(await head.text()).toBe('');
  });

  it('needs what GET needs: no token is a 401', async () => {
    const response = await call('/incidents', { method: 'HEAD' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('CORS', () => {
  const [allowed, alsoAllowed] = E2E_CORS_ORIGINS;
  const elsewhere = 'https://elsewhere.example.org';
  const exposed = CORS_EXPOSED_HEADERS.join(', ');

  it.each(resources.map((r) => [r.path, r.methods] as const))(
    'answers the preflight of %s for an allowed origin, and no other',
    async (path, methods) => {
      const url = concrete(path);
      const preflight = (origin: string) =>
        send(url, {
          method: 'OPTIONS',
          headers: {
            Origin: origin,
            'Access-Control-Request-Method': methods[0] ?? 'GET',
            'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
          },
        });
      const yes = await preflight(alsoAllowed);
      expect(yes.status).toBe(204);
      expect(yes.headers.get('access-control-allow-origin')).toBe(alsoAllowed);
      expect(yes.headers.get('access-control-allow-methods')).toBe(allowedMethods(methods).join(', '));
      expect(yes.headers.get('access-control-allow-headers')).toBe(CORS_ALLOWED_HEADERS.join(', '));
      expect(Number(yes.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(yes.headers.get('allow')).toBe(allowedMethods(methods).join(', '));
      const no = await preflight(elsewhere);
      expect(no.status).toBe(204);
      expect(no.headers.get('access-control-allow-origin')).toBeNull();
      expect(no.headers.get('access-control-allow-headers')).toBeNull();
    },
  );

  it('lets an allowed origin read every answer, errors included, and exposes the headers a client needs', async () => {
    const answers = [
      // A function's answers: a success with its rate-limit headers, a refusal.
      await call('/ping', { token: writer, headers: { Origin: allowed } }),
      await call('/ping?x=1', { token: writer, headers: { Origin: allowed } }),
      // API Gateway's own: the authorizer's 401, an unknown path, a wrong method.
      await call('/ping', { headers: { Origin: allowed } }),
      await call('/nowhere', { headers: { Origin: allowed } }),
      await call('/ping', { method: 'DELETE', headers: { Origin: allowed } }),
      // The public documents.
      await call('/openapi.json', { headers: { Origin: allowed } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 400, 401, 404, 405, 200]);
    for (const response of answers) {
      expect(response.headers.get('access-control-allow-origin'), String(response.status)).toBe(allowed);
      expect(response.headers.get('access-control-expose-headers')).toBe(exposed);
    }
  });

  it('gives another origin nothing to read from the functions', async () => {
    for (const response of [
      await call('/ping', { token: writer, headers: { Origin: elsewhere } }),
      await call('/ping?x=1', { token: writer, headers: { Origin: elsewhere } }),
      await call('/ping', { method: 'DELETE', headers: { Origin: elsewhere } }),
      await call('/ping', { token: writer }),
    ]) {
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
    // API Gateway's own answers cannot choose among several origins: they name the caller's
    // (shared/topology/cors.ts). They are the same generic problems for everyone.
    const unauthorized = await call('/ping', { headers: { Origin: elsewhere } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe(elsewhere);
  });
});

describe('request bodies', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const member = JSON.stringify({ membershipType: 'regular' });

  it('must be sent as application/json: none or another media type is 415', async () => {
    const send = (body: RequestInit['body'], headers: Record<string, string> = {}) =>
      call('/members', { method: 'POST', token: writer, headers, body });
    // A Uint8Array body goes without a Content-Type (a string would be text/plain).
    await problemOf(await send(bytes(member)), 415, 'unsupported_media_type');
    await problemOf(await send(member, { 'Content-Type': 'text/plain' }), 415, 'unsupported_media_type');
    await problemOf(
      await send(member, { 'Content-Type': 'application/json-seq' }),
      415,
      'unsupported_media_type',
    );
    await problemOf(
      await send(member, { 'Content-Type': 'application/json; charset=latin1' }),
      415,
      'unsupported_media_type',
    );
    expect((await send(member, { 'Content-Type': 'application/json; charset=UTF-8' })).status).toBe(201);
    expect((await send(member, { 'Content-Type': 'application/merge-patch+json' })).status).toBe(201);
  });

  it('may be left out where every field is optional; where some are required that is a 400', async () => {
    const { id } = await bodyOf<{ id: string }>(await declareIncident(writer));
    expect((await call(`/incidents/${id}/contain`, { method: 'POST', token: writer })).status).toBe(200);
    expect((await call(`/incidents/${id}/close`, { method: 'POST', token: writer })).status).toBe(200);
    const problem = await problemOf(
      await call('/incidents', { method: 'POST', token: writer }),
      400,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(['category', 'detectedAt', 'severity']);
  });

  it('refuses bytes that are not UTF-8, unpaired surrogates and NUL in any string, naming the field', async () => {
    const send = (body: RequestInit['body']) =>
      call('/events', {
        method: 'POST',
        token: writer,
        headers: { 'Content-Type': 'application/json' },
        body,
      });
    const valid = { title: 'Fair', startsAt: '2099-01-01T10:00:00Z', location: 'Hall' };
    const invalidUtf8 = Buffer.concat([
      Buffer.from('{"title":"Fair'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","startsAt":"2099-01-01T10:00:00Z"}'),
    ]);
    for (const [what, body, field] of [
      ['bytes that are not UTF-8', new Uint8Array(invalidUtf8), 'title'],
      ['an unpaired surrogate', JSON.stringify(valid).replace('Hall', 'Hall\\ud800'), 'location'],
      ['a NUL character', JSON.stringify(valid).replace('Fair', 'Fa\\u0000ir'), 'title'],
    ] as const) {
      const problem = await problemOf(await send(body), 400, 'validation_failed');
      expect(problem.errors, what).toEqual([
        {
          field,
          message: 'Text must be valid UTF-8 without NUL characters or unpaired surrogates.',
        },
      ]);
    }
    expect((await send(JSON.stringify(valid).replace('Hall', 'Hall \\ud83c\\udf3b'))).status).toBe(201);
  });

  it('trims text before checking it: blank is refused, padding is dropped', async () => {
    const created = await bodyOf<{ title: string }>(
      await postJson('/events', writer, { title: '  Fair  ', startsAt: '2099-01-01T10:00:00Z' }),
    );
    expect(created.title).toBe('Fair');
    const problem = await problemOf(
      await postJson('/events', writer, { title: '   ', startsAt: '2099-01-01T10:00:00Z' }),
      400,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => e.field)).toEqual(['title']);
  });

  it('are compared as JSON for an Idempotency-Key: other spacing and key order are a replay', async () => {
    const key = randomUUID();
    const send = (text: string) =>
      call('/members', {
        method: 'POST',
        token: writer,
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: text,
      });
    const first = await send('{"membershipType":"regular","region":"north"}');
    const again = await send('{\n  "region": "north",\n  "membershipType": "regular"\n}\n');
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await bodyOf(again)).id).toBe((await bodyOf(first)).id);
    await problemOf(await send('{"membershipType":"regular","region":"south"}'), 409, 'idempotency_conflict');
  });
});
