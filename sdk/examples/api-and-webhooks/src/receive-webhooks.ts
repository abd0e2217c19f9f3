/**
 * A subscriber: an HTTP endpoint that verifies each delivery over its raw body before acting on it,
 * registered through the client. It declares an incident to get a first event, prints the verified
 * event as one JSON line, removes its registration and stops.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@mis/client';
import { settings } from './settings.ts';

const client = createClient(settings());
let secret = '';
let resolveFirst: (event: WebhookEvent) => void = () => {};
const firstEvent = new Promise<WebhookEvent>((resolve) => {
  resolveFirst = resolve;
});

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      // The exact bytes received: parsing and re-serialising the JSON would change what was signed.
      const event = verifyWebhook(secret, Buffer.concat(chunks), request.headers);
      response.writeHead(204).end();
      // x-service-delivery (= webhook-id) is the same on every attempt: the key to act once per delivery.
      if (event.event === 'incident.declared') resolveFirst(event);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      response.writeHead(400, { 'content-type': 'text/plain' }).end(error.message);
    }
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

const { data: endpoint } = await client.POST('/webhooks', {
  body: { url: `http://127.0.0.1:${port}/webhooks`, events: ['incident.declared'] },
});
secret = endpoint.secret;

try {
  const { data: incident } = await client.POST('/incidents', {
    body: { severity: 'high', category: 'confidentiality', detectedAt: new Date().toISOString() },
  });
  const timeout = setTimeout(() => {
    console.error('No verified delivery within 30 s');
    process.exit(1);
  }, 30_000);
  const event = await firstEvent;
  clearTimeout(timeout);
  if (event.event !== 'incident.declared') throw new Error(`unexpected ${event.event}`);
  console.log(
    JSON.stringify({ verified: event.event, incidentId: event.incident.id, declared: incident.id }),
  );
} finally {
  await client.DELETE('/webhooks/{id}', { params: { path: { id: endpoint.id } } });
  server.closeAllConnections();
  server.close();
}
