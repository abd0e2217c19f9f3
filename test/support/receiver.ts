import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The exact bytes received, as a subscriber must verify them. */
  rawBody: string;
  body: { event: string; organisationId: string; attempt: number; [key: string]: unknown };
  at: number;
}

export type Behaviour = (request: ReceivedWebhook, response: ServerResponse, index: number) => void;

export const answer =
  (status: number, headers: Record<string, string> = {}): Behaviour =>
  (_request, response) => {
    response.writeHead(status, headers);
    response.end(status < 300 ? 'ok' : 'not now');
  };

/** A real HTTP subscriber on loopback that records every webhook and answers as told. */
export async function startReceiver(behaviour: Behaviour = answer(200)) {
  const received: ReceivedWebhook[] = [];
  let current = behaviour;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const webhook: ReceivedWebhook = {
        headers: request.headers,
        rawBody,
        body: JSON.parse(rawBody),
        at: Date.now(),
      };
      received.push(webhook);
      current(webhook, response, received.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    behave(next: Behaviour) {
      current = next;
    },
    /** Waits (bounded) until `count` webhooks matched `predicate`. */
    async waitFor(
      count: number,
      predicate: (w: ReceivedWebhook) => boolean = () => true,
      timeoutMs = 20_000,
    ) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(predicate);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) {
          throw new Error(
            `Expected ${count} webhooks, got ${matching.length}: ${JSON.stringify(received.map((r) => r.body))}`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `probe` until it returns a value (bounded), for state that settles asynchronously. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
