import { listDeliveries } from '../../shared/adapters/delivery-log.js';
import { getWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { pathId } from '../../shared/http/path.js';
import { parseQuery } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { pageQuery } from '../../shared/schemas/pagination.js';

export const handler = apiHandler(async (event, caller) => {
  const endpointId = pathId(event, 'Webhook endpoint');
  const query = parseQuery(event, pageQuery);
  if (!(await getWebhookEndpoint(caller.organisationId, endpointId)))
    throw new NotFoundError('Webhook endpoint');
  const page = await listDeliveries(caller.organisationId, endpointId, {
    limit: query.limit,
    cursor: query.cursor,
  });
  const data = page.deliveries.map(({ organisationId: _org, ...attempt }) => attempt);
  return jsonResponse(200, { data, nextCursor: page.nextCursor });
});
