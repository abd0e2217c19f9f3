import { commitWrite } from '../../shared/app/commit-write.js';
import { ownEndpoint, recoverDeliveries } from '../../shared/app/send-again.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { recoverBody } from '../../shared/schemas/webhook-endpoints.js';

export const handler = apiHandler(async (event, caller) => {
  const endpoint = await ownEndpoint(caller.organisationId, pathId(event, 'Webhook endpoint'));
  const { since } = parseJsonBody(event, recoverBody);
  const count = await recoverDeliveries(endpoint, new Date(since));
  return commitWrite(writeRequestOf(event, caller), [], jsonResponse(202, { count }));
});
