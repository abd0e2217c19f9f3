import type { webhooks } from './generated/openapi.js';

type PayloadOf<K extends keyof webhooks> = webhooks[K] extends {
  post: { requestBody: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** Every event the OpenAPI document describes under `webhooks`, by name: follows the document on regeneration. */
export type DocumentedWebhookEvent = { [K in keyof webhooks]: PayloadOf<K> }[keyof webhooks];

/**
 * `POST /webhooks/{id}/test` sends this to one endpoint. Used only while the document does not describe
 * `webhook.test` itself; once it does, the document's payload is the one in `WebhookEvent`.
 */
export interface WebhookTestEvent {
  event: 'webhook.test';
  organisationId: string;
  webhook: { id: string };
  attempt: number;
}

/** What `verifyWebhook` returns: a union over `event`, so a `switch (event.event)` narrows the payload. */
export type WebhookEvent =
  | DocumentedWebhookEvent
  | (Extract<DocumentedWebhookEvent, { event: 'webhook.test' }> extends never ? WebhookTestEvent : never);

export type WebhookEventName = WebhookEvent['event'];
