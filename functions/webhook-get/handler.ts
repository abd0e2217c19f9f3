import { ownEndpoint } from '../../shared/app/send-again.js';
import { webhookEndpointView } from '../../shared/domain/webhook-view.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';
import { jsonResponse } from '../../shared/http/responses.js';

export const handler = apiHandler(async (event, caller) => {
  const endpoint = await ownEndpoint(caller.organisationId, pathId(event, 'Webhook endpoint'));
  return jsonResponse(200, webhookEndpointView(endpoint));
});
