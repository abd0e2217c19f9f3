import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  guardedLookup,
  RESPONSE_EXCERPT_BYTES,
  type Resolver,
  sendWebhook,
} from '../../shared/adapters/webhook-sender.js';
import {
  answer,
  answerAfter,
  type Receiver,
  resetConnection,
  startReceiver,
} from '../support/webhook-receiver.js';

let receiver: Receiver;
const body = Buffer.from('{"event":"member.created","attempt":1}', 'utf8');
const headers = { 'content-type': 'application/json', 'x-service-delivery': 'd-1' };
const local = { allowPrivate: true };

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe('sending a webhook', () => {
  it('POSTs the exact bytes with the headers and reports a 2xx as success', async () => {
    const url = receiver.route('/ok', answer(202, 'accepted'));
    const result = await sendWebhook(url, body, headers, local);
    expect(result).toMatchObject({ ok: true, statusCode: 202, responseExcerpt: 'accepted' });
    expect(result.errorClass).toBeUndefined();
    const [request] = receiver.requestsTo('/ok');
    expect(request?.method).toBe('POST');
    expect(request?.rawBody).toBe(body.toString('utf8'));
    expect(request?.headers).toMatchObject({ ...headers, 'content-length': String(body.length) });
  });

  it('keeps only a short excerpt of a huge answer and does not wait for the rest', async () => {
    const url = receiver.route('/huge', (_n, _request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('x'.repeat(64 * 1024));
      // Never ends: the sender must settle on the excerpt, not on the end of the body.
    });
    const started = Date.now();
    const result = await sendWebhook(url, body, headers, local);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.ok).toBe(true);
    expect(result.responseExcerpt).toHaveLength(RESPONSE_EXCERPT_BYTES);
  });

  it('does not follow redirects', async () => {
    const url = receiver.route('/moved', answer(302, '', { location: `${receiver.origin}/target` }));
    const result = await sendWebhook(url, body, headers, local);
    expect(result).toMatchObject({ ok: false, statusCode: 302, errorClass: 'redirect' });
    expect(receiver.requestsTo('/target')).toHaveLength(0);
  });

  it('reports other statuses as http_error, with Retry-After', async () => {
    const url = receiver.route('/busy', answer(503, 'busy', { 'retry-after': '120' }));
    const result = await sendWebhook(url, body, headers, local);
    expect(result).toMatchObject({ ok: false, statusCode: 503, errorClass: 'http_error', retryAfter: '120' });
  });

  it('classifies a reset connection', async () => {
    const url = receiver.route('/reset', resetConnection);
    expect(await sendWebhook(url, body, headers, local)).toMatchObject({
      ok: false,
      errorClass: 'connection_reset',
    });
    expect(receiver.requestsTo('/reset')).toHaveLength(1);
  });

  it('classifies a refused connection', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const result = await sendWebhook(`http://127.0.0.1:${port}/`, body, headers, local);
    expect(result).toMatchObject({ ok: false, errorClass: 'connection_refused' });
  });

  it('gives up at the deadline with error class timeout', async () => {
    const url = receiver.route('/slow', answerAfter(2000));
    const result = await sendWebhook(url, body, headers, { ...local, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, errorClass: 'timeout' });
    expect(result.statusCode).toBeUndefined();
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(1500);
  });

  it('counts an answer whose status arrived in time even when the body is slow', async () => {
    const url = receiver.route('/trickle', (_n, _request, response) => {
      response.writeHead(200);
      response.write('partial');
    });
    const result = await sendWebhook(url, body, headers, { ...local, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: true, statusCode: 200, responseExcerpt: 'partial' });
  });

  it('reports an unusable URL without sending', async () => {
    expect(await sendWebhook('not a url', body, headers, local)).toMatchObject({
      ok: false,
      errorClass: 'invalid_url',
    });
  });
});

describe('on AWS (private addresses refused)', () => {
  const aws = { allowPrivate: false };

  it('refuses http', async () => {
    const url = receiver.route('/plain', answer(200));
    expect(await sendWebhook(url, body, headers, aws)).toMatchObject({
      ok: false,
      errorClass: 'invalid_url',
    });
    expect(receiver.requestsTo('/plain')).toHaveLength(0);
  });

  it('refuses IP literals that are not public before connecting', async () => {
    for (const host of [
      '127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '0x7f000001',
    ]) {
      const result = await sendWebhook(`https://${host}:${receiver.port}/`, body, headers, aws);
      expect(result, host).toMatchObject({ ok: false, errorClass: 'blocked_address', latencyMs: 0 });
    }
  });

  it('refuses a host name that resolves to loopback, checked when the socket connects', async () => {
    const result = await sendWebhook(`https://localhost:${receiver.port}/`, body, headers, aws);
    expect(result).toMatchObject({ ok: false, errorClass: 'blocked_address' });
  });

  it('refuses a public-looking name that resolves (or rebinds) to a private address', async () => {
    const rebinding: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const result = await sendWebhook('https://hooks.example.test/', body, headers, {
      ...aws,
      resolver: rebinding,
    });
    expect(result).toMatchObject({ ok: false, errorClass: 'blocked_address' });
  });

  it('classifies a name that does not resolve as dns', async () => {
    const nowhere: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const result = await sendWebhook('https://nowhere.example.test/', body, headers, {
      ...aws,
      resolver: nowhere,
    });
    expect(result).toMatchObject({ ok: false, errorClass: 'dns' });
  });

  it('lets the socket connect to public addresses, in both lookup forms', async () => {
    const addresses: LookupAddress[] = [{ address: '93.184.216.34', family: 4 }];
    const lookup = guardedLookup(async () => addresses);
    const all = await new Promise((resolve, reject) =>
      lookup('hooks.example.test', { all: true }, (error, result) =>
        error ? reject(error) : resolve(result),
      ),
    );
    expect(all).toEqual(addresses);
    const one = await new Promise((resolve, reject) =>
      lookup('hooks.example.test', {}, (error, address, family) =>
        error ? reject(error) : resolve([address, family]),
      ),
    );
    expect(one).toEqual(['93.184.216.34', 4]);
  });
});
