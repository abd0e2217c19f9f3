import * as z from 'zod/mini';
import { CATEGORIES, SEVERITIES, STATUSES } from '../domain/incident.js';
import { MAX_DELIVERY_ATTEMPTS } from '../domain/retry-schedule.js';
import { MAX_PAYOUT_HOURS } from '../domain/timebank.js';
import {
  DELIVERY_EVENT_NAMES,
  type DeliveryEventName,
  TEST_EVENT,
  WEBHOOK_EVENT_NAMES,
  WEBHOOK_EVENTS,
  type WebhookEventName,
} from '../domain/webhook-events.js';
import { calendarDate, described, instant, uuid } from './common.js';

/**
 * The payloads subscribers receive: `{event, organisationId, <resource>: {...}, attempt}`. Resources
 * carry ids and non-personal fields only (no free text: titles, notes and names may hold personal
 * data). Resource objects are open (`additionalProperties` allowed) so that a field can be added
 * without breaking a subscriber that validates strictly; the envelope is closed.
 */

const resources = {
  incident: described(
    z.looseObject({
      id: uuid('The incident id.'),
      severity: z.enum(SEVERITIES),
      category: described(z.enum(CATEGORIES), { description: 'The kind of personal-data breach.' }),
      detectedAt: instant('When the incident was detected.'),
      status: z.enum(STATUSES),
      title: z.optional(z.string()),
      declaredAt: z.optional(instant('When it was declared.')),
      containedAt: z.optional(instant('When it was contained.')),
      notifiedAt: z.optional(instant('When the supervisory authority was notified.')),
      closedAt: z.optional(instant('When it was closed.')),
      notificationDeadline: instant('`detectedAt` + 72 hours: when the authority must have been notified.'),
      sequence: described(z.int().check(z.minimum(1)), {
        description:
          '1 at declaration, one more with every change of the incident record; keep the highest seen per incident and ignore lower ones. The deadline alarm carries the current one.',
      }),
    }),
    { id: 'WebhookIncident', description: 'The incident as subscribers see it.' },
  ),
  member: described(
    z.looseObject({
      id: uuid('The member id.'),
      membershipType: z.string(),
      region: z.nullable(z.string()),
      joinedAt: calendarDate('The day the member joined.'),
      createdAt: instant('When the member was recorded.'),
    }),
    { id: 'WebhookMember', description: 'The recorded member: an id and categories only.' },
  ),
  contribution: described(
    z.looseObject({
      id: uuid('The contribution id.'),
      amount: z.strictObject({
        value: described(z.string().check(z.regex(/^-?\d+(\.\d+)?$/)), {
          description: 'Decimal amount as a string, so that no precision is lost.',
          examples: ['25.00'],
        }),
        currency: described(z.string().check(z.regex(/^[A-Z]{3}$/)), {
          description: 'ISO 4217 currency code.',
          examples: ['EUR'],
        }),
      }),
      memberId: z.nullable(uuid('The contributing member, when known.')),
      receivedAt: instant('When the contribution was received.'),
    }),
    { id: 'WebhookContribution', description: 'A received contribution.' },
  ),
  payout: described(
    z.looseObject({
      id: uuid('The payout id.'),
      memberId: uuid('The member paid out to.'),
      hours: described(z.number().check(z.positive(), z.maximum(MAX_PAYOUT_HOURS)), {
        description: 'Hours settled, to the hundredth.',
        examples: [2.5],
      }),
      settledAt: instant('When the payout was settled.'),
    }),
    { id: 'WebhookTimebankPayout', description: 'A settled time-bank payout.' },
  ),
  file: described(
    z.looseObject({
      id: uuid('The file id.'),
      expiresAt: instant('The expiry time that was set.'),
      expiredAt: z.optional(instant('When the expiry was processed and this event emitted.')),
    }),
    {
      id: 'WebhookSanctuaryFile',
      description: 'An expired sanctuary file, by id (the name may be personal).',
    },
  ),
} as const;

const EVENT_DESCRIPTIONS: Record<WebhookEventName, string> = {
  'incident.declared': 'An incident was declared with a severity level.',
  'incident.contained': 'An incident was marked as contained.',
  'incident.notified': 'The supervisory authority was notified of an incident.',
  'incident.closed': 'An incident was closed.',
  'incident.deadline_72h':
    'Alarm: an incident is still neither notified nor closed 60 hours after detection (the legal notification deadline is 72 hours).',
  'member.created': 'A member was recorded (POST /members).',
  'contribution.received': 'A contribution was received (POST /contributions).',
  'timebank.payout.settled': 'A time-bank payout was settled (POST /timebank/payouts).',
  'sanctuary.file.expired': 'A sanctuary file reached its expiry time.',
};

function payloadSchema<E extends WebhookEventName>(event: E) {
  const resourceKey = WEBHOOK_EVENTS[event];
  return described(
    z.strictObject({
      event: z.literal(event),
      organisationId: uuid('The organisation the event belongs to.'),
      [resourceKey]: resources[resourceKey],
      attempt: described(z.int().check(z.minimum(1)), {
        description: `This attempt of this delivery, counting every earlier one (automatic, redriven or redelivered); 1 on the first try. The automatic schedule makes ${MAX_DELIVERY_ATTEMPTS}; a redrive from the dead-letter queue gives ${MAX_DELIVERY_ATTEMPTS} more (numbered on: ${MAX_DELIVERY_ATTEMPTS + 1}…${2 * MAX_DELIVERY_ATTEMPTS}), a redeliver one. Bounded below only.`,
      }),
    }),
    { id: pascal(event), description: EVENT_DESCRIPTIONS[event] },
  );
}

function pascal(event: string): string {
  return `${event
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Payload`;
}

/** One schema per event name: what a subscriber receives as the JSON body. */
export const webhookPayloadSchemas = Object.fromEntries(
  WEBHOOK_EVENT_NAMES.map((event) => [event, payloadSchema(event)]),
) as { [E in WebhookEventName]: ReturnType<typeof payloadSchema<E>> };

export const webhookEventDescriptions = EVENT_DESCRIPTIONS;

/** What `POST /webhooks/{id}/test` sends: to that endpoint alone; no endpoint subscribes to it. */
export const webhookTestPayloadSchema = described(
  z.strictObject({
    event: z.literal(TEST_EVENT),
    organisationId: uuid('The organisation the endpoint belongs to.'),
    webhook: z.strictObject({ id: uuid('The endpoint the test was sent to.') }),
    attempt: described(z.int().check(z.minimum(1)), {
      description: 'This attempt of the test delivery, 1 on the first.',
    }),
  }),
  { id: 'WebhookTestPayload', description: 'A test event, sent when the endpoint owner asks for one.' },
);

/** The delivery headers, with `service` standing for the deployment's SERVICE_NAME. */
export function webhookHeaderSchema(service = 'service') {
  return z.strictObject({
    [`x-${service}-signature`]: described(z.string().check(z.regex(/^sha256=[0-9a-f]{64}$/)), {
      description:
        "`sha256=` and the lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the endpoint's secret string (as GitHub's X-Hub-Signature-256). Verify over the raw body, in constant time.",
    }),
    [`x-${service}-event`]: described(
      z.enum(DELIVERY_EVENT_NAMES as [DeliveryEventName, ...DeliveryEventName[]]),
      {
        description: 'The event name.',
      },
    ),
    [`x-${service}-delivery`]: described(z.string(), {
      description:
        "The delivery id: one per event and endpoint, the same on every attempt. Use it as the subscriber's idempotency key.",
    }),
    'webhook-id': described(z.string(), { description: 'Standard Webhooks: the delivery id again.' }),
    'webhook-timestamp': described(z.string().check(z.regex(/^\d+$/)), {
      description: 'Standard Webhooks: Unix seconds of this attempt; reject old ones to stop replays.',
    }),
    'webhook-signature': described(
      z.string().check(z.regex(/^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$/)),
      {
        description:
          'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the base64-decoded part of the `whsec_` secret. During a secret rotation\'s overlap, two space-separated signatures: `v1,<new> v1,<old>`.',
      },
    ),
    [`x-${service}-signature-previous`]: z.optional(
      described(z.string().check(z.regex(/^sha256=[0-9a-f]{64}$/)), {
        description:
          "Only during a secret rotation's overlap: the same signature as `x-" +
          service +
          '-signature`, keyed with the previous secret.',
      }),
    ),
  });
}
