export { ApiError, type FieldIssue, RequestTimeoutError } from './api-error.js';
export {
  type Answer,
  type CallOptions,
  type ClientOptions,
  createClient,
  type ListItem,
  type ListPath,
  type MisClient,
} from './client.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
export type { RetryOptions, TransportOptions } from './resilient-fetch.js';
export {
  type VerifyOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
} from './verify-webhook.js';
export type {
  DocumentedWebhookEvent,
  WebhookEvent,
  WebhookEventName,
  WebhookTestEvent,
} from './webhook-events.js';
