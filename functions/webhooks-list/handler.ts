import { listWebhookEndpoints } from '../../shared/adapters/webhook-endpoint-store.js';
import { webhookEndpointView } from '../../shared/domain/webhook-view.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { jsonResponse } from '../../shared/http/responses.js';

export const handler = apiHandler(async (_event, caller) => {
  const endpoints = await listWebhookEndpoints(caller.organisationId);
  return jsonResponse(200, { data: endpoints.map(webhookEndpointView) });
});
