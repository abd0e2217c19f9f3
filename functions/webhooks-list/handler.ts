import { listWebhookEndpointPage } from '../../shared/adapters/webhook-endpoint-store.js';
import { webhookEndpointView } from '../../shared/domain/webhook-view.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { parseQuery } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { DEFAULT_PAGE_SIZE, pageQuery } from '../../shared/schemas/pagination.js';

export const handler = apiHandler(async (event, caller) => {
  const { limit = DEFAULT_PAGE_SIZE, cursor } = parseQuery(event, pageQuery);
  const page = await listWebhookEndpointPage(caller.organisationId, limit, cursor);
  return jsonResponse(200, {
    data: page.endpoints.map((endpoint) => webhookEndpointView(endpoint)),
    nextCursor: page.nextCursor,
  });
});
