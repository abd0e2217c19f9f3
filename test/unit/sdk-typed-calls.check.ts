/**
 * Compile-time checks of the SDK's typing, run by `npm run typecheck` (never executed): calls follow the
 * document's paths, bodies and answers; only list paths can be paged; events narrow on `event`.
 */
import { createClient, verifyWebhook } from '../../sdk/src/index.js';

const client = createClient({ baseUrl: 'http://localhost:3000/api/public/v1', token: 'svc_x_y' });

export async function typedCalls(): Promise<string[]> {
  const { data: incident } = await client.GET('/incidents/{id}', { params: { path: { id: 'x' } } });
  const status: 'declared' | 'contained' | 'notified' | 'closed' = incident.status;
  const { data: ping } = await client.GET('/ping');
  const declared = await client.POST('/incidents', {
    body: { severity: 'high', category: 'integrity', detectedAt: new Date().toISOString() },
  });
  const ids: string[] = [];
  for await (const item of client.paginate('/incidents', { params: { query: { limit: 2 } } }))
    ids.push(item.id);
  for await (const attempt of client.paginate('/webhooks/{id}/deliveries', {
    params: { path: { id: 'x' } },
  })) {
    ids.push(attempt.deliveryId);
  }
  // @ts-expect-error /ping answers no list
  client.paginate('/ping');
  // @ts-expect-error no such path
  await client.GET('/nope');
  // @ts-expect-error the path parameter is required
  await client.GET('/incidents/{id}');
  // @ts-expect-error severity is one of four
  await client.POST('/incidents', { body: { severity: 'huge', category: 'integrity', detectedAt: '' } });
  const { data: text } = await client.GET('/openapi.json', { parseAs: 'text' });
  await client.DELETE('/webhooks/{id}', { params: { path: { id: 'x' } } });

  const event = verifyWebhook('whsec_x', '{}', {});
  switch (event.event) {
    case 'incident.declared':
      ids.push(event.incident.severity);
      break;
    case 'webhook.test':
      ids.push(event.webhook.id);
      break;
  }
  return [status, ping.organisationId, declared.data.id, text, ...ids];
}
