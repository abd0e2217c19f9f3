import type { DeliveryEventName } from './webhook-events.js';

export type DeliveryOutcome = 'succeeded' | 'retry_scheduled' | 'failed' | 'endpoint_disabled' | 'skipped';

/** One attempt to deliver one event to one endpoint, as subscribers and operators see it. */
export interface DeliveryAttempt {
  organisationId: string;
  endpointId: string;
  deliveryId: string;
  eventId: string;
  event: DeliveryEventName;
  /**
   * This attempt's number, counting every earlier attempt of the delivery (automatic, redriven,
   * redelivered); 1 on the first. A `skipped` entry carries the number the next real attempt will.
   */
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
