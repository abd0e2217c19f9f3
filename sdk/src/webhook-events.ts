import type { webhooks } from './generated/openapi.js';

type PayloadOf<K extends keyof webhooks> = webhooks[K] extends {
  post: { requestBody: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/**
 * Every event the OpenAPI document describes under `webhooks`, by name, `webhook.test` (sent by
 * `POST /webhooks/{id}/test`) among them: follows the document on regeneration, nothing written by hand.
 */
export type DocumentedWebhookEvent = { [K in keyof webhooks]: PayloadOf<K> }[keyof webhooks];

/** What `verifyWebhook` returns: a union over `event`, so a `switch (event.event)` narrows the payload. */
export type WebhookEvent = DocumentedWebhookEvent;

/** The payload of `POST /webhooks/{id}/test`, taken from the document. */
export type WebhookTestEvent = Extract<WebhookEvent, { event: 'webhook.test' }>;

export type WebhookEventName = WebhookEvent['event'];
