import * as z from 'zod/mini';
import { DISABLED_REASONS } from '../domain/webhook-endpoint.js';
import {
  DELIVERY_EVENT_NAMES,
  type DeliveryEventName,
  WEBHOOK_EVENT_NAMES,
  type WebhookEventName,
} from '../domain/webhook-events.js';
import { described, instant, MAX_SAFE_NUMBER, uuid } from './common.js';

/** Webhook endpoints and their delivery log as the REST API returns them. */
const eventName = z.enum(WEBHOOK_EVENT_NAMES as [WebhookEventName, ...WebhookEventName[]]);

const endpointShape = {
  id: uuid('The endpoint id.'),
  url: described(z.string(), { description: 'Where events are POSTed.' }),
  events: described(z.array(eventName), { description: 'The events it receives.' }),
  description: described(z.nullable(z.string()), { description: "The owner's note on the endpoint." }),
  createdAt: instant('When it was registered.'),
  status: described(z.enum(['enabled', 'disabled']), {
    description: 'A disabled endpoint is sent nothing; its events are logged as `skipped`, to be recovered.',
  }),
  disabledAt: z.nullable(instant('When it was disabled.')),
  disabledReason: described(z.nullable(z.enum(DISABLED_REASONS)), {
    description:
      '`gone`: it answered 410 Gone. `failing`: every attempt failed for `WEBHOOK_DISABLE_AFTER_HOURS` (120 by default). `manual`: its owner disabled it. Null while enabled.',
  }),
  failingSince: z.nullable(instant('Since when every attempt has failed; null after a success.')),
  previousSecretExpiresAt: z.nullable(
    instant('While a rotation overlaps: until when the previous secret still signs beside the new one.'),
  ),
};

export const webhookEndpointSchema = described(z.strictObject(endpointShape), {
  id: 'WebhookEndpoint',
  description: 'A registered webhook endpoint. Its secret is never shown again.',
});

export const createdWebhookEndpointSchema = described(
  z.strictObject({
    ...endpointShape,
    secret: described(z.string().check(z.regex(/^whsec_[A-Za-z0-9+/]+=*$/)), {
      description: 'The signing secret (`whsec_…`), shown only in this response: store it now.',
    }),
  }),
  { id: 'CreatedWebhookEndpoint', description: 'The new endpoint, with its signing secret.' },
);

export const webhookEndpointListSchema = described(
  z.strictObject({
    data: described(z.array(webhookEndpointSchema), { description: 'Endpoints, in the order of their ids.' }),
    nextCursor: described(z.nullable(z.string()), {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  }),
  { id: 'WebhookEndpointList', description: "One page of the organisation's webhook endpoints." },
);

export const deliveryAttemptSchema = described(
  z.strictObject({
    endpointId: uuid('The endpoint.'),
    deliveryId: described(z.string(), {
      description: 'One per event and endpoint; the same on every attempt.',
    }),
    eventId: z.string(),
    event: z.enum(DELIVERY_EVENT_NAMES as [DeliveryEventName, ...DeliveryEventName[]]),
    attempt: described(z.int().check(z.minimum(1)), {
      description:
        'Attempt number, counting every earlier attempt of this delivery (automatic, redriven, redelivered); 1 on the first. A `skipped` entry shows the number its next real attempt will carry.',
    }),
    at: instant('When the attempt started.'),
    outcome: z.enum(['succeeded', 'retry_scheduled', 'failed', 'endpoint_disabled', 'skipped']),
    statusCode: z.optional(z.int().check(z.minimum(100), z.maximum(599))),
    errorClass: z.optional(
      z.enum([
        'timeout',
        'connection_reset',
        'connection_refused',
        'dns',
        'blocked_address',
        'tls',
        'redirect',
        'http_error',
        'invalid_url',
        'protocol_error',
        'network',
      ]),
    ),
    latencyMs: z.number().check(z.minimum(0), z.maximum(MAX_SAFE_NUMBER)),
    responseExcerpt: z.optional(z.string()),
    nextAttemptAt: z.optional(instant('When the next attempt is due.')),
  }),
  { id: 'DeliveryAttempt', description: 'One attempt to deliver one event to the endpoint.' },
);

export const deliveryListSchema = described(
  z.strictObject({
    data: z.array(deliveryAttemptSchema),
    nextCursor: described(z.nullable(z.string()), {
      description: 'Pass as `cursor` for the next, older page; null on the last page.',
    }),
  }),
  { id: 'DeliveryAttemptList', description: 'Delivery attempts, newest first.' },
);

export const rotatedSecretSchema = described(
  z.strictObject({
    id: uuid('The endpoint.'),
    secret: described(z.string().check(z.regex(/^whsec_[A-Za-z0-9+/]+=*$/)), {
      description: 'The new signing secret, shown only in this response: store it now.',
    }),
    previousSecretExpiresAt: z.nullable(
      instant('Until when the previous secret still signs beside the new one; null when it stopped at once.'),
    ),
  }),
  { id: 'RotatedSecret', description: 'The new signing secret and the end of the overlap.' },
);

export const acceptedDeliverySchema = described(
  z.strictObject({
    deliveryId: described(z.string(), {
      description: 'The delivery: its attempts appear in `GET /webhooks/{id}/deliveries` under this id.',
    }),
  }),
  { id: 'AcceptedDelivery', description: 'A delivery accepted for sending now.' },
);

export const recoveryCountSchema = described(
  z.strictObject({
    count: described(z.int().check(z.minimum(0)), { description: 'How many deliveries are sent again.' }),
  }),
  { id: 'RecoveryCount', description: 'The deliveries a recover sends again.' },
);
