import type { LookupAddress } from 'node:dns';
import { request as httpsRequest } from 'node:https';
import { createServer, type LookupFunction } from 'node:net';
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
  watchHangups,
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
    const huge = watchHangups((_n, _request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('x'.repeat(64 * 1024));
      // Never ends: the sender must settle on the excerpt, not on the end of the body.
    });
    const result = await sendWebhook(receiver.route('/huge', huge.behaviour), body, headers, local);
    expect(result.ok).toBe(true);
    expect(result.responseExcerpt).toHaveLength(RESPONSE_EXCERPT_BYTES);
    // The sender hung up on the unfinished answer instead of reading on (how fast: npm run bench).
    expect(await huge.hungUp(0)).toEqual({ beforeAnswer: true });
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
    const slow = watchHangups(answerAfter(10_000));
    const url = receiver.route('/slow', slow.behaviour);
    const result = await sendWebhook(url, body, headers, { ...local, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, errorClass: 'timeout' });
    expect(result.statusCode).toBeUndefined();
    // Not before the deadline; and the request was aborted there, not awaited: the subscriber saw
    // the connection closed before it answered. (How long after the deadline: npm run bench.)
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(await slow.hungUp(0)).toEqual({ beforeAnswer: true });
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

  it('refuses localhost by name before connecting', async () => {
    const result = await sendWebhook(`https://localhost:${receiver.port}/by-name`, body, headers, aws);
    expect(result).toMatchObject({ ok: false, errorClass: 'blocked_address', latencyMs: 0 });
    expect(receiver.requestsTo('/by-name')).toHaveLength(0);
  });

  describe('a host name, checked when the socket connects', () => {
    let listener: ConnectionCounter;
    beforeAll(async () => {
      listener = await countConnections();
    });
    afterAll(async () => {
      await listener.close();
    });

    it('would reach the listener through the name without the guard (the rig can see a connection)', async () => {
      const { resolver } = resolving('127.0.0.1');
      const before = listener.connections();
      const unguarded: LookupFunction = (hostname, options, callback) =>
        void resolver(hostname, options).then((addresses) =>
          options.all ? callback(null, addresses) : callback(null, addresses[0]?.address ?? '', 4),
        );
      await new Promise<void>((resolve) => {
        const request = httpsRequest({
          method: 'POST',
          hostname: 'hooks.example.test',
          port: listener.port,
          agent: false,
          lookup: unguarded,
        });
        request.on('error', () => resolve());
        request.end();
      });
      expect(listener.connections() - before).toBe(1);
    });

    it.each([
      ['loopback', ['127.0.0.1']],
      ['a public address, then loopback (rebinding)', ['93.184.216.34', '127.0.0.1']],
      ['loopback, then a public address', ['127.0.0.1', '93.184.216.34']],
    ])('refuses a name that resolves to %s, and never opens a connection', async (_case, addresses) => {
      const { resolver, asked } = resolving(...addresses);
      const before = listener.connections();
      const url = `https://hooks.example.test:${listener.port}/hooks`;
      const result = await sendWebhook(url, body, headers, { ...aws, resolver });
      expect(result).toMatchObject({ ok: false, errorClass: 'blocked_address' });
      expect(result.statusCode).toBeUndefined();
      // The socket's lookup went through the guard (and not the system resolver).
      expect(asked).toEqual(['hooks.example.test']);
      // Time for a connection that got through to arrive, before counting none.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(listener.connections() - before).toBe(0);
    });

    it('refuses a name that resolves to a private, metadata or IPv6 loopback address', async () => {
      for (const address of ['10.0.0.7', '192.168.1.20', '169.254.169.254', '::1', '::ffff:127.0.0.1']) {
        const { resolver } = resolving(address);
        const result = await sendWebhook('https://hooks.example.test/', body, headers, { ...aws, resolver });
        expect(result, address).toMatchObject({ ok: false, errorClass: 'blocked_address' });
      }
    });
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

/** Answers every lookup with `addresses`, and remembers which names it was asked for. */
function resolving(...addresses: string[]): { resolver: Resolver; asked: string[] } {
  const asked: string[] = [];
  const resolver: Resolver = async (hostname) => {
    asked.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolver, asked };
}

type ConnectionCounter = Awaited<ReturnType<typeof countConnections>>;

/** A TCP listener on 127.0.0.1 that counts connections (and drops them): below TLS and HTTP, nothing gets by. */
async function countConnections() {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    connections: () => count,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
