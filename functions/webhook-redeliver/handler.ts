import { commitWrite } from '../../shared/app/commit-write.js';
import { ownEndpoint, redeliver } from '../../shared/app/send-again.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { noBody } from '../../shared/schemas/webhook-endpoints.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const handler = apiHandler(async (event, caller) => {
  const endpoint = await ownEndpoint(caller.organisationId, pathId(event, 'Webhook endpoint'));
  const deliveryId = event.pathParameters?.deliveryId ?? '';
  // Delivery ids are UUID-shaped (derived from the event and endpoint); anything else names none.
  if (!UUID.test(deliveryId)) throw new NotFoundError('Delivery');
  parseJsonBody(event, noBody);
  await redeliver(endpoint, deliveryId);
  return commitWrite(writeRequestOf(event, caller), [], jsonResponse(202, { deliveryId }));
});
