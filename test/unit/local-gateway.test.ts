import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type ProxyHandler } from '../../infra/local/gateway.js';
import { BASE_PATH } from '../../shared/config.js';
import { allowWholeApi } from '../../shared/domain/authorizer-policy.js';
import { generateToken } from '../../shared/domain/token.js';

/**
 * The local stand-in for API Gateway on its own, with a function that tells what it was given: what
 * reaches a function, and what the gateway answers by itself, with the defaults of `npm start`.
 */
const received: APIGatewayProxyEvent[] = [];
const echo: ProxyHandler = async (event) => {
  received.push(event);
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ method: event.httpMethod }),
  };
};
const { token } = generateToken('svc');
const gateway = createGateway({
  handlers: new Map([['ping', echo]]),
  authorizer: async (event) =>
    allowWholeApi(event.methodArn, {
      organisationId: 'org',
      tokenId: 'tok',
      scopes: 'read write',
      rateLimitPerMinute: 60,
    }),
});
let base: string;
let port: number;

beforeAll(async () => {
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  port = (gateway.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}${BASE_PATH}`;
});

afterAll(async () => {
  gateway.closeAllConnections();
  await new Promise((resolve) => gateway.close(resolve));
});

const auth = { Authorization: `Bearer ${token}` };

describe('the local gateway', () => {
  it('gives a function the names of query parameters as plain keys, whatever they are', async () => {
    const query = '?constructor=1&__proto__=2&toString=3&valueOf=4&hasOwnProperty=5&a=6&a=7';
    const response = await fetch(`${base}/ping${query}`, { headers: auth });
    expect(response.status).toBe(200);
    const event = received.at(-1);
    expect(Object.getPrototypeOf(event?.queryStringParameters)).toBe(Object.prototype);
    expect(Object.entries(event?.queryStringParameters ?? {})).toEqual([
      ['constructor', '1'],
      ['__proto__', '2'],
      ['toString', '3'],
      ['valueOf', '4'],
      ['hasOwnProperty', '5'],
      ['a', '7'],
    ]);
    expect(event?.multiValueQueryStringParameters?.a).toEqual(['6', '7']);
    expect(Object.hasOwn(event?.multiValueQueryStringParameters ?? {}, '__proto__')).toBe(true);
  });

  it('runs the GET route for HEAD, tells the function so, and sends no body', async () => {
    const head = await fetch(`${base}/ping`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(received.at(-1)).toMatchObject({ httpMethod: 'HEAD', resource: `${BASE_PATH}/ping` });
    // The length of what the function answered, as a GET would have sent it.
    expect(head.headers.get('content-length')).toBe(String(JSON.stringify({ method: 'HEAD' }).length));
    expect(await head.text()).toBe('');
  });

  it('answers a preflight itself, and allows no browser origin unless one is named', async () => {
    const calls = received.length;
    const preflight = await fetch(`${base}/ping`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.org', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const unauthorized = await fetch(`${base}/ping`, { headers: { Origin: 'https://app.example.org' } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBeNull();
    expect(received.length).toBe(calls);
  });

  it('answers headers over 16 KB with a 431 problem, not an empty body', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `GET ${BASE_PATH}/ping HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
        );
      });
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toContain('Content-Type: application/problem+json');
    expect(JSON.parse(body)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });
});
