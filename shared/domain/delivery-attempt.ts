import type { WebhookEventName } from './webhook-events.js';

export type DeliveryOutcome = 'succeeded' | 'retry_scheduled' | 'failed' | 'endpoint_disabled' | 'skipped';

/** One attempt to deliver one event to one endpoint, as subscribers and operators see it. */
export interface DeliveryAttempt {
  organisationId: string;
  endpointId: string;
  deliveryId: string;
  eventId: string;
  event: WebhookEventName;
  /** SQS's receive count; restarts at 1 after a redrive from the dead-letter queue. */
  attempt: number;
  /** ISO 8601 UTC, when the attempt started. */
  at: string;
  outcome: DeliveryOutcome;
  statusCode?: number;
  errorClass?: DeliveryErrorClass;
  latencyMs: number;
  responseExcerpt?: string;
  /** ISO 8601 UTC, for `retry_scheduled`. */
  nextAttemptAt?: string;
}

export type DeliveryErrorClass =
  | 'timeout'
  | 'connection_reset'
  | 'connection_refused'
  | 'dns'
  | 'blocked_address'
  | 'tls'
  | 'redirect'
  | 'http_error'
  | 'invalid_url'
  | 'protocol_error'
  | 'network';
