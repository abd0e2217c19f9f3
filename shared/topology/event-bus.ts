/**
 * The event bus contract: the relay publishes one entry per delivery, and one rule sends those to
 * the delivery queue with the entry's detail as the message body. The CDK rule and the local bus
 * both use these values.
 */
export const EVENT_SOURCE = 'membership-incident-service.outbox';
export const DELIVERY_DETAIL_TYPE = 'webhook.delivery';

export const DELIVERY_RULE_PATTERN = {
  source: [EVENT_SOURCE],
  'detail-type': [DELIVERY_DETAIL_TYPE],
} as const;

/** PutEvents takes at most ten entries per call. */
export const PUT_EVENTS_BATCH = 10;
