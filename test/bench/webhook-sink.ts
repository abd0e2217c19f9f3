import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signStandardWebhook } from '../../shared/domain/webhook-signature.js';

/**
 * Wall-clock milliseconds with sub-millisecond resolution, monotonic within the bench process and
 * comparable with `Date.now()` in the stack's process (the delivery log's timestamps).
 */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export interface Receipt {
  /** The resource id in the body (`incident.id`): what the bench matches a webhook to its event by. */
  resourceId: string;
  /** `webhook-id`: one per event and endpoint, the same on every attempt. */
  deliveryId: string;
  /** epochMs() when the whole body had arrived. */
  at: number;
}

/**
 * The subscriber: a bare node:http server on 127.0.0.1 in the bench process that answers 200 as
 * soon as a body has arrived, then records it under its path (one path per measured run) and
 * checks its Standard Webhooks signature with the secret registered for that path.
 */
export async function startWebhookSink() {
  const receipts = new Map<string, Receipt[]>();
  const secrets = new Map<string, string>();
  const problems = { badSignatures: 0, malformed: 0 };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = epochMs();
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('ok');
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(request.headers[name] ?? '');
      let resourceId: unknown;
      try {
        resourceId = (JSON.parse(rawBody) as { incident?: { id?: unknown } }).incident?.id;
      } catch {
        // Counted below.
      }
      if (typeof resourceId !== 'string') {
        problems.malformed++;
        return;
      }
      const secret = secrets.get(path);
      const expected = secret
        ? signStandardWebhook(secret, header('webhook-id'), Number(header('webhook-timestamp')), rawBody)
        : undefined;
      if (expected !== header('webhook-signature')) problems.badSignatures++;
      const list = receipts.get(path) ?? [];
      list.push({ resourceId, deliveryId: header('webhook-id'), at });
      receipts.set(path, list);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  /** The first receipt of each resource id at `path` (of the wanted ones, when given). */
  const firstReceipts = (path: string, wanted?: ReadonlySet<string>) => {
    const first = new Map<string, Receipt>();
    for (const receipt of receipts.get(path) ?? []) {
      if ((!wanted || wanted.has(receipt.resourceId)) && !first.has(receipt.resourceId)) {
        first.set(receipt.resourceId, receipt);
      }
    }
    return first;
  };
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** The signing secret of the deliveries to `path`, once it is known. */
    expectSecret(path: string, secret: string): void {
      secrets.set(path, secret);
    },
    firstReceipts,
    /** Webhooks received for a resource id that had already been received at the same path. */
    duplicates: () =>
      [...receipts.keys()].reduce(
        (sum, path) => sum + (receipts.get(path)?.length ?? 0) - firstReceipts(path).size,
        0,
      ),
    problems: () => ({ ...problems }),
    /**
     * Polls (every 20 ms, bounded) until `count` resource ids have arrived at `path`; returns what
     * arrived by then, so that the caller reports the missing ones instead of failing the run.
     */
    async waitFor(path: string, count: number, timeoutMs: number, wanted?: ReadonlySet<string>) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const first = firstReceipts(path, wanted);
        if (first.size >= count || Date.now() > deadline) return first;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type WebhookSink = Awaited<ReturnType<typeof startWebhookSink>>;
