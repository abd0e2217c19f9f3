import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body, as the signature covers it. */
  body: string;
  at: number;
}

/** What a path answers to its n-th request (0-based). */
export type Behaviour = (n: number, request: IncomingMessage, response: ServerResponse) => void;

export const answer =
  (status: number, body = '', headers: Record<string, string> = {}): Behaviour =>
  (_n, _request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain', ...headers });
    response.end(body);
  };

/** Answers `first` to the first `times` requests, then `then`. */
export const firstThen =
  (times: number, first: Behaviour, then: Behaviour = answer(200, 'ok')): Behaviour =>
  (n, request, response) =>
    (n < times ? first : then)(n, request, response);

export const resetConnection: Behaviour = (_n, request) => request.socket.destroy();

export const answerAfter =
  (ms: number, status = 200): Behaviour =>
  (_n, _request, response) => {
    setTimeout(() => {
      if (!response.destroyed) answer(status, 'late')(0, _request, response);
    }, ms).unref();
  };

/** A real subscriber on 127.0.0.1: every request is recorded by path, and each path behaves as told. */
export async function startReceiver() {
  const requests: ReceivedRequest[] = [];
  const behaviours = new Map<string, Behaviour>();
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const n = requests.filter((r) => r.path === path).length;
      requests.push({
        method: request.method ?? '',
        path,
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      (behaviours.get(path) ?? answer(200, 'ok'))(n, request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    /** Registers a path's behaviour and returns its URL. */
    route(path: string, behaviour: Behaviour): string {
      behaviours.set(path, behaviour);
      return `http://127.0.0.1:${port}${path}`;
    },
    requestsTo: (path: string) => requests.filter((r) => r.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
