import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { baseUrl, bodyOf, call, cli, newOrganisation, newToken, problemOf } from '../support/api.js';

/** Sends an Authorization header byte for byte, which fetch refuses to do for binary or control characters. */
function rawPing(authorization: Buffer): Promise<number> {
  const url = new URL(`${baseUrl()}/ping`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), '127.0.0.1', () => {
      socket.write(
        Buffer.concat([
          Buffer.from(
            `GET ${url.pathname} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: `,
          ),
          authorization,
          Buffer.from('\r\n\r\n'),
        ]),
      );
    });
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(Number(data.split(' ')[1])));
    socket.on('error', reject);
  });
}

describe('GET /ping', () => {
  it('answers 200 with the organisation, the interface version and the server time', async () => {
    const org = await newOrganisation();
    const { token } = await newToken(org.id, 'read');
    const before = Date.now();
    const response = await call('/ping', { token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = await bodyOf<{ at: string }>(response);
    expect(Object.keys(body).sort()).toEqual(['at', 'ok', 'organisationId', 'version']);
    expect(body).toMatchObject({ ok: true, organisationId: org.id, version: '1.0.0' });
    expect(body.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(body.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(body.at)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('accepts a token with either scope and tells each organisation only its own id', async () => {
    const [a, b] = [await newOrganisation(), await newOrganisation()];
    const tokenA = await newToken(a.id, 'write');
    const tokenB = await newToken(b.id, 'read');
    expect((await bodyOf(await call('/ping', { token: tokenA.token }))).organisationId).toBe(a.id);
    expect((await bodyOf(await call('/ping', { token: tokenB.token }))).organisationId).toBe(b.id);
  });

  it('carries RateLimit headers counting down the token budget', async () => {
    const org = await newOrganisation();
    const { token } = await newToken(org.id);
    const first = await call('/ping', { token });
    const second = await call('/ping', { token });
    expect(first.headers.get('ratelimit-limit')).toBe('60');
    expect(first.headers.get('ratelimit-remaining')).toBe('59');
    expect(second.headers.get('ratelimit-remaining')).toBe('58');
    const reset = Number(second.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
  });

  it('records when a token was last used', async () => {
    const org = await newOrganisation();
    const issued = await newToken(org.id);
    await call('/ping', { token: issued.token });
    const tokens = await cli<{ id: string; lastUsedAt: string | null }[]>('token', 'list', '--org', org.id);
    expect(tokens.find((t) => t.id === issued.id)?.lastUsedAt).toMatch(/Z$/);
  });
});

describe('authentication', () => {
  it('answers 401 problem+json with a Bearer challenge when no token is sent', async () => {
    const response = await call('/ping');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await problemOf(response, 401, 'unauthorized');
  });

  it('answers 401 for malformed, unknown, wrong-secret and extended tokens', async () => {
    const org = await newOrganisation();
    const { token, prefix } = await newToken(org.id);
    const lastChar = token.at(-1) === 'a' ? 'b' : 'a';
    const headers = [
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      `Bearer  ${token}`,
      `Bearer ${token}a`,
      `Bearer ${token}!`,
      `Bearer ${token.slice(0, -1)}${lastChar}`,
      `Bearer svc_unknown1_${'a'.repeat(40)}`,
      `Bearer svc_${prefix}_${'é'.repeat(40)}`,
      `Bearer svc_${prefix}_${'a'.repeat(8 * 1024 - 20)}`,
      token,
    ];
    for (const header of headers) {
      const response = await fetch(`${baseUrl()}/ping`, { headers: { Authorization: header } });
      expect(response.status, header.slice(0, 40)).toBe(401);
      await response.body?.cancel();
    }
  });

  it('never answers a binary or control-character header with a 5xx', async () => {
    const statuses = await Promise.all([
      rawPing(Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xff, 0xfe, 0x01, 0x7f])),
      rawPing(Buffer.from('Bearer svc_abcd1234_\u00ff\u00fe', 'latin1')),
      rawPing(Buffer.alloc(8 * 1024, 0x41)),
      rawPing(Buffer.from('')),
    ]);
    for (const status of statuses) {
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    }
  });

  it('refuses a revoked token at once, because revocation flushes the authorizer cache', async () => {
    const org = await newOrganisation();
    const issued = await newToken(org.id);
    expect((await call('/ping', { token: issued.token })).status).toBe(200);
    const revoked = await cli<{ id: string; revokedAt: string }>('token', 'revoke', issued.id);
    expect(revoked.id).toBe(issued.id);
    await problemOf(await call('/ping', { token: issued.token }), 401, 'unauthorized');
  });
});

describe('routing errors', () => {
  it('answers 404 problem+json for an unknown path, with or without a token', async () => {
    await problemOf(await call('/nothing-here'), 404, 'not_found');
    await problemOf(await fetch(`${baseUrl().replace('/v1', '/v2')}/ping`), 404, 'not_found');
  });

  it('answers 405 problem+json with Allow for a wrong method', async () => {
    const response = await call('/ping', { method: 'DELETE' });
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await problemOf(response, 405, 'method_not_allowed');
  });
});
