import { describe, expect, it } from 'vitest';
import {
  CORS_EXPOSED_HEADERS,
  corsResponseHeaders,
  gatewayAllowOrigin,
  gatewayCorsHeaders,
  parseCorsAllowList,
  preflightHeaders,
} from '../../shared/topology/cors.js';

const app = 'https://app.example.org';
const admin = 'https://admin.example.org:8443';

describe('the CORS allow-list', () => {
  it('allows no origin unless one is named', () => {
    for (const value of [undefined, '', ' , ']) {
      const list = parseCorsAllowList(value);
      expect(list).toEqual({ kind: 'none' });
      expect(corsResponseHeaders(list, app)).toEqual({});
      expect(preflightHeaders(list, app, ['GET', 'HEAD', 'OPTIONS'])).toEqual({
        Allow: 'GET, HEAD, OPTIONS',
      });
      expect(gatewayCorsHeaders(list, app)).toEqual({});
    }
  });

  it('takes origins separated by commas, or * for any, and refuses anything else at start-up', () => {
    expect(parseCorsAllowList(` ${app}, ${admin} `)).toEqual({ kind: 'origins', origins: [app, admin] });
    expect(parseCorsAllowList('*')).toEqual({ kind: 'any' });
    for (const bad of ['*,https://a.example', 'https://a.example/', 'a.example', 'https://a.example/path']) {
      expect(() => parseCorsAllowList(bad), bad).toThrow(/CORS_ALLOW_ORIGINS/);
    }
  });

  it('lets a named origin read an answer and its headers, and no other', () => {
    const list = parseCorsAllowList(`${app},${admin}`);
    expect(corsResponseHeaders(list, admin)).toEqual({
      'Access-Control-Allow-Origin': admin,
      'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
      Vary: 'Origin',
    });
    expect(corsResponseHeaders(list, 'HTTPS://APP.EXAMPLE.ORG')['Access-Control-Allow-Origin']).toBe(
      'HTTPS://APP.EXAMPLE.ORG',
    );
    expect(corsResponseHeaders(list, 'https://app.example.org.evil.example')).toEqual({ Vary: 'Origin' });
    expect(corsResponseHeaders(list, undefined)).toEqual({ Vary: 'Origin' });
    expect(preflightHeaders(list, app, ['GET', 'OPTIONS'])).toMatchObject({
      'Access-Control-Allow-Origin': app,
      'Access-Control-Allow-Methods': 'GET, OPTIONS',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key, If-None-Match, If-Match',
    });
  });

  it("gives API Gateway's own answers a fixed origin when it can, and the caller's when there are several", () => {
    expect(gatewayAllowOrigin(parseCorsAllowList('*'))).toEqual({ kind: 'fixed', value: '*' });
    expect(gatewayAllowOrigin(parseCorsAllowList(app))).toEqual({ kind: 'fixed', value: app });
    expect(gatewayAllowOrigin(parseCorsAllowList(`${app},${admin}`))).toEqual({ kind: 'request' });
    expect(gatewayCorsHeaders(parseCorsAllowList(`${app},${admin}`), admin)).toMatchObject({
      'Access-Control-Allow-Origin': admin,
      Vary: 'Origin',
    });
    expect(gatewayCorsHeaders(parseCorsAllowList(app), admin)['Access-Control-Allow-Origin']).toBe(app);
  });
});
