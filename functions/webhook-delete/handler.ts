import { deleteWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';

export const handler = apiHandler(async (event, caller) => {
  await deleteWebhookEndpoint(caller.organisationId, pathId(event, 'Webhook endpoint'));
  return { statusCode: 204, headers: { 'Cache-Control': 'no-store' }, body: '' };
});
