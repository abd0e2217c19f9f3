import { secretCipher } from '../../shared/adapters/secret-cipher.js';
import { prepareWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { assertAcceptableWebhookUrl } from '../../shared/adapters/webhook-sender.js';
import { commitWrite } from '../../shared/app/commit-write.js';
import type { WebhookEventName } from '../../shared/domain/webhook-events.js';
import { webhookEndpointView } from '../../shared/domain/webhook-view.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { writeRequestOf } from '../../shared/http/idempotency.js';
import { parseJsonBody } from '../../shared/http/request.js';
import { jsonResponse, locationOf } from '../../shared/http/responses.js';
import { createWebhookBody } from '../../shared/schemas/webhook-endpoints.js';

export const handler = apiHandler(
  async (event, caller) => {
    const input = parseJsonBody(event, createWebhookBody);
    assertAcceptableWebhookUrl(input.url);
    const { endpoint, secret, write } = await prepareWebhookEndpoint({
      organisationId: caller.organisationId,
      url: input.url,
      events: (input.events ?? []) as WebhookEventName[],
      ...(input.description === undefined ? {} : { description: input.description }),
    });
    const response = jsonResponse(
      201,
      { ...webhookEndpointView(endpoint), secret },
      { Location: locationOf(event, endpoint.id) },
    );
    // The response holds the secret, so a replayable copy of it is stored encrypted.
    return commitWrite(writeRequestOf(event, caller), [write], response, secretCipher());
  },
  { cipher: secretCipher },
);
