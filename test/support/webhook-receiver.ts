import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.js';

export interface WebhookPayload {
  event: string;
  organisationId: string;
  attempt: number;
  [key: string]: unknown;
}

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The exact bytes received, as a subscriber must verify them (and as the signature covers them). */
  rawBody: string;
  /** The body parsed as JSON, on first read: a request whose body is not JSON throws here. */
  readonly body: WebhookPayload;
  at: number;
}

/** What a path answers to its n-th request (0-based). */
export type Behaviour = (n: number, request: IncomingMessage, response: ServerResponse) => void;

export const answer =
  (status: number, body = status < 300 ? 'ok' : 'not now', headers: Record<string, string> = {}): Behaviour =>
  (_n, _request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain', ...headers });
    response.end(body);
  };

/** Leaves the request waiting: the sender's timeout, or a crash, ends it. */
export const noAnswer: Behaviour = () => {};

/** Answers `first` to the first `times` requests, then `then`. */
export const firstThen =
  (times: number, first: Behaviour, then: Behaviour = answer(200, 'ok')): Behaviour =>
  (n, request, response) =>
    (n < times ? first : then)(n, request, response);

export const resetConnection: Behaviour = (_n, request) => request.socket.destroy();

export const answerAfter =
  (ms: number, status = 200): Behaviour =>
  (n, request, response) => {
    setTimeout(() => {
      if (!response.destroyed) answer(status, 'late')(n, request, response);
    }, ms).unref();
  };

/**
 * `behaviour`, noting how each request's connection ended: `hungUp(n)` resolves when the n-th
 * (0-based) is closed, with `beforeAnswer: true` when the sender closed it before the whole answer
 * was sent (it gave up, or stopped reading) rather than the answer completing.
 */
export function watchHangups(behaviour: Behaviour) {
  const hangups: Promise<{ beforeAnswer: boolean }>[] = [];
  const watched: Behaviour = (n, request, response) => {
    hangups[n] = new Promise((resolve) =>
      response.once('close', () => resolve({ beforeAnswer: !response.writableFinished })),
    );
    behaviour(n, request, response);
  };
  return {
    behaviour: watched,
    hungUp: async (n = 0) => {
      const hangup = hangups[n];
      if (!hangup) throw new Error(`No request ${n} arrived`);
      return hangup;
    },
  };
}

/** The path that `url` points at, and that `startReceiver`'s behaviour and `behave` apply to. */
const HOOKS_PATH = '/hooks';

/**
 * A real subscriber on 127.0.0.1: every request is recorded, and each path behaves as told (`url`
 * answers `behaviour`; `route` adds other paths).
 */
export async function startReceiver(behaviour: Behaviour = answer(200)) {
  const received: ReceivedWebhook[] = [];
  const behaviours = new Map<string, Behaviour>([[HOOKS_PATH, behaviour]]);
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const n = received.filter((r) => r.path === path).length;
      const rawBody = Buffer.concat(chunks).toString('utf8');
      received.push({
        method: request.method ?? '',
        path,
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
        rawBody,
        get body() {
          return JSON.parse(rawBody) as WebhookPayload;
        },
        at: Date.now(),
      });
      (behaviours.get(path) ?? answer(200, 'ok'))(n, request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    url: `${origin}${HOOKS_PATH}`,
    /** Every request, in the order they arrived. */
    received,
    /** Registers a path's behaviour (or replaces it) and returns its URL. */
    route(path: string, next: Behaviour): string {
      behaviours.set(path, next);
      return `${origin}${path}`;
    },
    /** Answers `next` at `url` from now on. */
    behave(next: Behaviour) {
      behaviours.set(HOOKS_PATH, next);
    },
    requestsTo: (path: string) => received.filter((r) => r.path === path),
    /** Waits (bounded) until `count` requests matched `predicate`, and returns all that match. */
    waitFor(count: number, predicate: (w: ReceivedWebhook) => boolean = () => true, timeoutMs = 20_000) {
      let matched = 0;
      return waitFor(
        () => `${count} webhooks, got ${matched}: ${JSON.stringify(received.map((r) => r.rawBody))}`,
        () => {
          const matching = received.filter(predicate);
          matched = matching.length;
          return matching.length >= count ? matching : undefined;
        },
        { timeoutMs, intervalMs: 20 },
      );
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
