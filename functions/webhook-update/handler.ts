import { getWebhookEndpoint, updateWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { assertAcceptableWebhookUrl } from '../../shared/adapters/webhook-sender.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import type { WebhookEventName } from '../../shared/domain/webhook-events.js';
import { webhookEndpointView } from '../../shared/domain/webhook-view.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { updateWebhookBody } from '../../shared/schemas/webhook-endpoints.js';

export const handler = apiHandler(async (event, caller) => {
  const id = pathId(event, 'Webhook endpoint');
  // Another organisation's endpoint is a 404 whatever the body says.
  if (!(await getWebhookEndpoint(caller.organisationId, id))) throw new NotFoundError('Webhook endpoint');
  const change = parseJsonBody(event, updateWebhookBody);
  // A new URL passes the same guard as at registration (and again at every delivery).
  if (change.url !== undefined) assertAcceptableWebhookUrl(change.url);
  const endpoint = await updateWebhookEndpoint(caller.organisationId, id, {
    ...change,
    events: change.events as WebhookEventName[] | undefined,
  });
  return jsonResponse(200, webhookEndpointView(endpoint));
});
