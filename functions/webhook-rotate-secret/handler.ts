import { secretCipher } from '../../shared/adapters/secret-cipher.js';
import { getWebhookEndpoint, prepareSecretRotation } from '../../shared/adapters/webhook-endpoint-store.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import { NotFoundError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { pathId } from '../../shared/http/path.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse } from '../../shared/http/responses.js';
import { rotateSecretBody } from '../../shared/schemas/webhook-endpoints.js';

export const handler = apiHandler(
  async (event, caller) => {
    const id = pathId(event, 'Webhook endpoint');
    if (!(await getWebhookEndpoint(caller.organisationId, id))) throw new NotFoundError('Webhook endpoint');
    const { overlapHours } = parseJsonBody(event, rotateSecretBody);
    const { endpoint, secret, write } = await prepareSecretRotation(caller.organisationId, id, overlapHours);
    const response = jsonResponse(200, {
      id: endpoint.id,
      secret,
      previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
    });
    // The response holds the new secret, so a replayable copy of it is stored encrypted.
    return commitWrite(writeRequestOf(event, caller), [write], response, secretCipher());
  },
  { cipher: secretCipher },
);
