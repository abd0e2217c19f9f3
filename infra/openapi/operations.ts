import * as z from 'zod/mini';
import { WEBHOOK_EVENT_NAMES } from '../../shared/domain/webhook-events.js';
import {
  amendIncidentBody,
  authorityUpdateBody,
  dataSubjectCommunicationBody,
} from '../../shared/schemas/breach-record.js';
import {
  breachRegisterCsvSchema,
  breachRegisterSchema,
  breachReportHtmlSchema,
  breachReportSchema,
} from '../../shared/schemas/breach-report.js';
import { described } from '../../shared/schemas/common.js';
import { contributionSchema, newContributionBody } from '../../shared/schemas/contributions.js';
import { eventListSchema, eventSchema, newEventBody } from '../../shared/schemas/events.js';
import { impactReportSchema, newImpactReportBody } from '../../shared/schemas/impact.js';
import { incidentListSchema, incidentSchema } from '../../shared/schemas/incident-views.js';
import {
  closeIncidentBody,
  containIncidentBody,
  declareIncidentBody,
  notifyIncidentBody,
} from '../../shared/schemas/incidents.js';
import { memberSchema, memberStatisticsSchema, newMemberBody } from '../../shared/schemas/members.js';
import { pingResultSchema } from '../../shared/schemas/ping.js';
import { registerFileBody, sanctuaryFileSchema } from '../../shared/schemas/sanctuary-files.js';
import { payoutSchema, settlePayoutBody } from '../../shared/schemas/timebank.js';
import {
  acceptedDeliverySchema,
  createdWebhookEndpointSchema,
  deliveryListSchema,
  recoveryCountSchema,
  rotatedSecretSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
} from '../../shared/schemas/webhook-endpoint-views.js';
import {
  createWebhookBody,
  recoverBody,
  rotateSecretBody,
  updateWebhookBody,
} from '../../shared/schemas/webhook-endpoints.js';
import type { RouteKey } from '../../shared/topology/routes.js';

/**
 * What the OpenAPI document says about each route of `shared/topology/routes.ts` beyond the route itself
 * (method, path, access and summary come from the route table). Keyed by `METHOD path`: the
 * generator walks the route table and refuses to finish without an entry for every route, so a
 * new route cannot be left out of the document.
 */
export interface OperationSpec {
  operationId: string;
  tag: TagName;
  description: string;
  body?: z.ZodMiniType;
  success: {
    status: 200 | 201 | 202 | 204;
    description: string;
    schema?: z.ZodMiniType;
    /** Default application/json. */
    contentType?: string;
    /** A `Location` header names the new resource. */
    location?: boolean;
    /** Other representations of the same answer, by media type, chosen with `Accept`. */
    alternatives?: Record<string, z.ZodMiniType>;
    /** The incident's ETag, for `If-Match` on a later PATCH. */
    incidentEtag?: boolean;
  };
  /** ETag on the success response, 304 on a matching If-None-Match. */
  conditional?: boolean;
  /** Extra problem responses with what they mean here, e.g. `{ 404: 'No report yet (`no_report`).' }`. */
  problems?: Partial<Record<404 | 409 | 412, string>>;
  /** Served, but not part of the API's description (the console's static files). */
  hidden?: boolean;
}

export const TAGS = {
  Health: 'Checking a key.',
  Members: 'Anonymised membership statistics and recording members.',
  Events: "The organisation's public events.",
  Impact: 'Social-impact reports.',
  Incidents: 'Data-breach incident records and their lifecycle.',
  Webhooks: 'Webhook endpoints, their deliveries, and the events sent to them (signed).',
  Documentation: 'This description and the interactive console; public, no token needed.',
  Contributions: 'Contributions received, in any ISO 4217 currency.',
  'Time bank': 'Time-bank payouts to members.',
  Sanctuary: 'Sanctuary files kept until they expire.',
} as const;
export type TagName = keyof typeof TAGS;

const openApiDocumentSchema = described(
  z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({}), paths: z.looseObject({}) }),
  { description: 'An OpenAPI 3.1 document.' },
);

export const OPERATIONS: Record<RouteKey, OperationSpec> = {
  'GET /ping': {
    operationId: 'ping',
    tag: 'Health',
    description:
      'Checks that the token is valid and live and tells which organisation it belongs to. Any scope.',
    success: { status: 200, description: 'The key is healthy.', schema: pingResultSchema },
  },
  'GET /members': {
    operationId: 'getMemberStatistics',
    tag: 'Members',
    description: [
      "Anonymised membership statistics of the caller's organisation: the total, the counts by membership type and by region, and how many joined in the last 30 and 365 days.",
      '',
      'No identifiers and no per-person data are returned. A count from 1 to `minimumGroupSize - 1` (1 to 4 by default) is withheld (`withheld: true`, `count: null`), and so is any further count that would let a withheld one be worked out by subtraction from the total or from the other figures. Groups are listed by name, not by size.',
      '',
      'The figures are kept up to date when a member is recorded, so reading them costs the same whatever the size of the organisation. `asOf` is when they last changed; with `If-None-Match` an unchanged answer is a `304`.',
    ].join('\n'),
    success: { status: 200, description: 'The statistics.', schema: memberStatisticsSchema },
    conditional: true,
  },
  'POST /members': {
    operationId: 'recordMember',
    tag: 'Members',
    description:
      'Records a member: a membership type, optionally a region and a join date. No personal data is taken; unknown fields are refused. Counts in GET /members at once.',
    body: newMemberBody,
    success: { status: 201, description: 'The member was recorded.', schema: memberSchema },
  },
  'GET /events': {
    operationId: 'listUpcomingEvents',
    tag: 'Events',
    description: [
      "The organisation's upcoming public events (starting now or later), soonest first. Past and non-public events never appear.",
      '',
      'Pages hold `limit` events; pass `nextCursor` back as `cursor`, with the same `from` and `to`, for the next page. A cursor is opaque and only valid for the organisation and filters it was issued for: any other is refused with `400` and code `invalid_cursor`.',
    ].join('\n'),
    success: { status: 200, description: 'One page of events.', schema: eventListSchema },
    conditional: true,
  },
  'POST /events': {
    operationId: 'publishEvent',
    tag: 'Events',
    description:
      'Publishes an event. `endsAt` may not precede `startsAt`. A public event (the default) is listed by GET /events until it starts.',
    body: newEventBody,
    success: { status: 201, description: 'The event was published.', schema: eventSchema },
  },
  'GET /impact': {
    operationId: 'getLatestImpactReport',
    tag: 'Impact',
    description: 'The latest published social-impact report: the one published last.',
    success: { status: 200, description: 'The latest report.', schema: impactReportSchema },
    conditional: true,
    problems: { 404: 'No report has been published yet (code `no_report`).' },
  },
  'POST /impact': {
    operationId: 'publishImpactReport',
    tag: 'Impact',
    description:
      'Publishes a social-impact report; it becomes the latest. Metric keys must be unique within the report.',
    body: newImpactReportBody,
    success: { status: 201, description: 'The report was published.', schema: impactReportSchema },
  },
  'GET /incidents': {
    operationId: 'listIncidents',
    tag: 'Incidents',
    description:
      "The organisation's incidents, newest first, a page at a time (`limit` 1 to 100, default 20; `cursor` from `nextCursor`).",
    success: { status: 200, description: 'One page of incidents.', schema: incidentListSchema },
  },
  'POST /incidents': {
    operationId: 'declareIncident',
    tag: 'Incidents',
    description:
      'Declares a data-breach incident (status `declared`) and sends `incident.declared`. The 72-hour alarm (`incident.deadline_72h`) follows 60 hours after `detectedAt` unless the incident is notified or closed by then.',
    body: declareIncidentBody,
    success: {
      status: 201,
      description: 'The incident was declared.',
      schema: incidentSchema,
      location: true,
    },
  },
  'GET /incidents/{id}': {
    operationId: 'getIncident',
    tag: 'Incidents',
    description:
      'One incident with its breach record, its history and what follows from them as of now (`notificationDeadline`, `specialCategories`, `obligations`). The `ETag` names the version of the record, for `If-Match` on a PATCH.',
    success: { status: 200, description: 'The incident.', schema: incidentSchema, incidentEtag: true },
    problems: { 404: 'No incident of this organisation has this id (`not_found`).' },
  },
  'POST /incidents/{id}/contain': {
    operationId: 'containIncident',
    tag: 'Incidents',
    description: 'Marks a declared incident contained and sends `incident.contained`.',
    body: containIncidentBody,
    success: { status: 200, description: 'The contained incident.', schema: incidentSchema },
    problems: {
      404: 'No incident of this organisation has this id (`not_found`).',
      409: 'The move is not allowed from the current status (`invalid_transition`), or the Idempotency-Key was used with another request (`idempotency_conflict`).',
    },
  },
  'POST /incidents/{id}/notify': {
    operationId: 'notifyIncident',
    tag: 'Incidents',
    description:
      'Records that the supervisory authority was notified (from `declared` or `contained`) and sends `incident.notified`.',
    body: notifyIncidentBody,
    success: { status: 200, description: 'The notified incident.', schema: incidentSchema },
    problems: {
      404: 'No incident of this organisation has this id (`not_found`).',
      409: 'The move is not allowed from the current status (`invalid_transition`), or the Idempotency-Key was used with another request (`idempotency_conflict`).',
    },
  },
  'POST /incidents/{id}/close': {
    operationId: 'closeIncident',
    tag: 'Incidents',
    description: 'Closes an open incident and sends `incident.closed`.',
    body: closeIncidentBody,
    success: { status: 200, description: 'The closed incident.', schema: incidentSchema },
    problems: {
      404: 'No incident of this organisation has this id (`not_found`).',
      409: 'The incident is closed already (`invalid_transition`), or the Idempotency-Key was used with another request (`idempotency_conflict`).',
    },
  },
  'PATCH /incidents/{id}': {
    operationId: 'amendIncident',
    tag: 'Incidents',
    description: [
      'Changes the breach record (GDPR Art. 33(3) and (5)): each field sent replaces the one kept, the others stay. A history entry names the fields changed and the token that changed them. `occurredAt` may not be after `detectedAt`; a `risk` of `unlikely` needs its `rationale`.',
      '',
      "Send the incident's `ETag` as `If-Match` so that a change made meanwhile is not overwritten: a stale one is `412` (`precondition_failed`). Sends no webhook; the incident's `sequence` moves on.",
    ].join('\n'),
    body: amendIncidentBody,
    success: {
      status: 200,
      description: 'The changed incident.',
      schema: incidentSchema,
      incidentEtag: true,
    },
    problems: {
      404: 'No incident of this organisation has this id (`not_found`).',
      409: 'The incident is closed (`incident_closed`), or it changed between reading and writing (`conflict`).',
      412: '`If-Match` names another version of the incident (`precondition_failed`): read it again.',
    },
  },
  'POST /incidents/{id}/authority-updates': {
    operationId: 'addAuthorityUpdate',
    tag: 'Incidents',
    description:
      'Records a follow-up phase of the notification (GDPR Art. 33(4): information given in phases) in `authorityNotifications`. Only after `notify`. Sends no webhook; `sequence` moves on.',
    body: authorityUpdateBody,
    success: { status: 200, description: 'The incident.', schema: incidentSchema, incidentEtag: true },
    problems: {
      404: 'No incident of this organisation has this id (`not_found`).',
      409: 'The authority has not been notified yet (`not_notified`), the incident is closed (`incident_closed`), or the Idempotency-Key was used with another request (`idempotency_conflict`).',
    },
  },
  'POST /incidents/{id}/data-subject-communication': {
    operationId: 'decideDataSubjectCommunication',
    tag: 'Incidents',
    description:
      'Records the GDPR Art. 34 decision in `dataSubjectCommunication`: the people concerned were told, a public notice was made, or an exemption applies (which needs a `note`). A later decision replaces it; the history keeps both. Sends no webhook; `sequence` moves on.',
    body: dataSubjectCommunicationBody,
    success: { status: 200, description: 'The incident.', schema: incidentSchema, incidentEtag: true },
    problems: {
      404: 'No incident of this organisation has this id (`not_found`).',
      409: 'The incident is closed (`incident_closed`), or the Idempotency-Key was used with another request (`idempotency_conflict`).',
    },
  },
  'GET /incidents/{id}/report': {
    operationId: 'getBreachReport',
    tag: 'Incidents',
    description:
      'The notification for the supervisory authority, made from the record: one section for each item of GDPR Art. 33(3), the notification and its phases, the Art. 34 decision, and the timeline. `Accept: text/html` gives the same report as a printable page (self-contained: no scripts, no outside resources).',
    success: {
      status: 200,
      description: 'The report.',
      schema: breachReportSchema,
      alternatives: { 'text/html': breachReportHtmlSchema },
    },
    problems: { 404: 'No incident of this organisation has this id (`not_found`).' },
  },
  'GET /breach-register': {
    operationId: 'getBreachRegister',
    tag: 'Incidents',
    description:
      'The register of personal-data breaches (GDPR Art. 33(5)): every incident of the organisation, notified or not, newest first, a page at a time. `?format=csv` or `Accept: text/csv` gives the whole register as one CSV file.',
    success: {
      status: 200,
      description: 'One page of the register, or all of it as CSV.',
      schema: breachRegisterSchema,
      alternatives: { 'text/csv': breachRegisterCsvSchema },
    },
  },
  'GET /webhooks': {
    operationId: 'listWebhookEndpoints',
    tag: 'Webhooks',
    description:
      "The organisation's webhook endpoints, without their secrets, in the order of their ids, a page at a time (`limit` 1 to 100, default 20; `cursor` from `nextCursor`).",
    success: { status: 200, description: 'The endpoints.', schema: webhookEndpointListSchema },
  },
  'POST /webhooks': {
    operationId: 'createWebhookEndpoint',
    tag: 'Webhooks',
    description:
      `Registers an endpoint for the named events (all ${WEBHOOK_EVENT_NAMES.length} when \`events\` is left out). ` +
      'The URL must be https and must not point at a private, loopback, link-local or metadata address (the local stack allows http and loopback). The signing secret is in this response only.',
    body: createWebhookBody,
    success: {
      status: 201,
      description: 'The endpoint, with its secret.',
      schema: createdWebhookEndpointSchema,
      location: true,
    },
  },
  'DELETE /webhooks/{id}': {
    operationId: 'deleteWebhookEndpoint',
    tag: 'Webhooks',
    description: 'Removes an endpoint; it receives nothing more.',
    success: { status: 204, description: 'Removed.' },
    problems: { 404: 'No endpoint of this organisation has this id (`not_found`).' },
  },
  'GET /webhooks/{id}/deliveries': {
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    description:
      "The endpoint's delivery attempts, newest first, a page at a time, with outcome, status code and latency.",
    success: { status: 200, description: 'One page of attempts.', schema: deliveryListSchema },
    problems: { 404: 'No endpoint of this organisation has this id (`not_found`).' },
  },
  'GET /webhooks/{id}': {
    operationId: 'getWebhookEndpoint',
    tag: 'Webhooks',
    description:
      'One endpoint with its `status` (`enabled` or `disabled`), why it is disabled, since when it has been failing, and whether a rotated secret still signs. Never its secret.',
    success: { status: 200, description: 'The endpoint.', schema: webhookEndpointSchema },
    problems: { 404: 'No endpoint of this organisation has this id (`not_found`).' },
  },
  'PATCH /webhooks/{id}': {
    operationId: 'updateWebhookEndpoint',
    tag: 'Webhooks',
    description:
      'Changes the URL (checked like at registration: a private or loopback address is a 400 on AWS), the events, the description, or `enabled`. Disabling keeps every later event in the delivery log as `skipped`; enabling starts sending again, and `POST /webhooks/{id}/recover` sends what was skipped. `description: null` removes the description.',
    body: updateWebhookBody,
    success: { status: 200, description: 'The endpoint as it now is.', schema: webhookEndpointSchema },
    problems: { 404: 'No endpoint of this organisation has this id (`not_found`).' },
  },
  'POST /webhooks/{id}/test': {
    operationId: 'testWebhookEndpoint',
    tag: 'Webhooks',
    description:
      'Sends `{event: "webhook.test", organisationId, webhook: {id}, attempt}` to this endpoint alone, signed like every event, as one attempt without retries (also to a disabled endpoint, so that a receiver can be checked before enabling it). Its outcome appears in the delivery log under the `deliveryId`. `webhook.test` cannot be subscribed to.',
    success: { status: 202, description: 'Accepted: sent now.', schema: acceptedDeliverySchema },
    problems: { 404: 'No endpoint of this organisation has this id (`not_found`).' },
  },
  'POST /webhooks/{id}/rotate-secret': {
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    description:
      'Makes a new signing secret and answers it, once. For `overlapHours` (default 24, 0 to 168) the old secret keeps signing: `x-service-signature` is computed with the new secret, `x-service-signature-previous` with the old one, and `webhook-signature` carries both (`v1,<new> v1,<old>`), so a receiver verifies with either while it switches. `overlapHours: 0` stops the old secret at once (after a leak). Rotating again while an overlap runs stops the oldest secret at once: only the two newest ever sign.',
    body: rotateSecretBody,
    success: { status: 200, description: 'The new secret (shown only here).', schema: rotatedSecretSchema },
    problems: {
      404: 'No endpoint of this organisation has this id (`not_found`).',
      409: 'Another rotation won meanwhile (`conflict`), or the Idempotency-Key was used with another request (`idempotency_conflict`).',
    },
  },
  'POST /webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    operationId: 'redeliverWebhookDelivery',
    tag: 'Webhooks',
    description:
      'Sends that delivery again now: the same event, the same `x-service-delivery` and `webhook-id`, with `attempt` counting every earlier attempt. One attempt, with no automatic retries after it; its outcome is logged like any attempt. Works for as long as the delivery log keeps the delivery (90 days by default).',
    success: { status: 202, description: 'Accepted: sent now.', schema: acceptedDeliverySchema },
    problems: {
      404: 'No endpoint of this organisation has this id, or the endpoint has no delivery with this id in its log (`not_found`).',
    },
  },
  'POST /webhooks/{id}/recover': {
    operationId: 'recoverWebhookDeliveries',
    tag: 'Webhooks',
    description:
      'Sends again, oldest first, every delivery of this endpoint whose last outcome since `since` is `failed` or `skipped` (or the 410 that disabled it), each with a fresh retry schedule and the same delivery id. Enable a disabled endpoint first: to a disabled one they are skipped again. `since` in the future or beyond the delivery log retention is a 400.',
    body: recoverBody,
    success: { status: 202, description: 'Accepted: how many are sent again.', schema: recoveryCountSchema },
    problems: { 404: 'No endpoint of this organisation has this id (`not_found`).' },
  },
  'GET /portal': {
    operationId: 'getWebhooksPage',
    tag: 'Documentation',
    description:
      'The webhooks page, served from this origin: endpoints with their status and recent success rate, each delivery with its attempts, and buttons to test, redeliver, recover, enable or disable and rotate. Public; it asks for a token and keeps it in the tab only.',
    success: {
      status: 200,
      description: 'The webhooks page.',
      contentType: 'text/html',
      schema: described(z.string(), { description: 'HTML.' }),
    },
    conditional: true,
  },
  'POST /contributions': {
    operationId: 'recordContribution',
    tag: 'Contributions',
    description:
      "Records a contribution and sends `contribution.received`. The amount is a decimal string (never a JSON number) greater than zero, with at most the currency's ISO 4217 minor unit of decimal places; it is returned with exactly that many. A `memberId` must name a recorded member.",
    body: newContributionBody,
    success: {
      status: 201,
      description: 'The contribution was recorded.',
      schema: contributionSchema,
      location: true,
    },
    problems: {
      404: 'No member of this organisation has the `memberId` (`not_found`); nothing was recorded.',
    },
  },
  'GET /contributions/{id}': {
    operationId: 'getContribution',
    tag: 'Contributions',
    description: 'One contribution.',
    success: { status: 200, description: 'The contribution.', schema: contributionSchema },
    problems: { 404: 'No contribution of this organisation has this id (`not_found`).' },
  },
  'POST /timebank/payouts': {
    operationId: 'settleTimebankPayout',
    tag: 'Time bank',
    description:
      'Settles a payout of hours to a recorded member and sends `timebank.payout.settled` (without the note).',
    body: settlePayoutBody,
    success: { status: 201, description: 'The settled payout.', schema: payoutSchema, location: true },
    problems: {
      404: 'No member of this organisation has the `memberId` (`not_found`); nothing was settled.',
    },
  },
  'GET /timebank/payouts/{id}': {
    operationId: 'getTimebankPayout',
    tag: 'Time bank',
    description: 'One payout, with its note.',
    success: { status: 200, description: 'The payout.', schema: payoutSchema },
    problems: { 404: 'No payout of this organisation has this id (`not_found`).' },
  },
  'POST /sanctuary/files': {
    operationId: 'registerSanctuaryFile',
    tag: 'Sanctuary',
    description:
      'Registers a file with its expiry time. When `expiresAt` has passed (within about a minute), the file becomes `expired` and `sanctuary.file.expired` is sent, with the id and times but not the name.',
    body: registerFileBody,
    success: {
      status: 201,
      description: 'The file was registered.',
      schema: sanctuaryFileSchema,
      location: true,
    },
  },
  'GET /sanctuary/files/{id}': {
    operationId: 'getSanctuaryFile',
    tag: 'Sanctuary',
    description: 'One file, with whether its expiry has been processed.',
    success: { status: 200, description: 'The file.', schema: sanctuaryFileSchema },
    problems: { 404: 'No file of this organisation has this id (`not_found`).' },
  },
  'GET /openapi.json': {
    operationId: 'getOpenApiDocument',
    tag: 'Documentation',
    description: 'This document, with the address it was fetched from as its server. Public.',
    success: { status: 200, description: 'The OpenAPI 3.1 document.', schema: openApiDocumentSchema },
    conditional: true,
  },
  'GET /docs': {
    operationId: 'getConsole',
    tag: 'Documentation',
    description:
      'The interactive console (Swagger UI), served from this origin. Public; enter a token with Authorize to send requests.',
    success: {
      status: 200,
      description: 'The console page.',
      contentType: 'text/html',
      schema: described(z.string(), { description: 'HTML.' }),
    },
    conditional: true,
  },
  'GET /docs/{asset+}': {
    operationId: 'getConsoleAsset',
    tag: 'Documentation',
    description: "The console's scripts and styles.",
    success: { status: 200, description: 'The file.' },
    hidden: true,
  },
};
