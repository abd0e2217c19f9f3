import { commitWrite } from '../../shared/app/commit-write.js';
import { ownEndpoint, sendTestDelivery } from '../../shared/app/send-again.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { noBody } from '../../shared/schemas/webhook-endpoints.js';

export const handler = apiHandler(async (event, caller) => {
  const endpoint = await ownEndpoint(caller.organisationId, pathId(event, 'Webhook endpoint'));
  parseJsonBody(event, noBody);
  const deliveryId = await sendTestDelivery(endpoint);
  return commitWrite(writeRequestOf(event, caller), [], jsonResponse(202, { deliveryId }));
});
