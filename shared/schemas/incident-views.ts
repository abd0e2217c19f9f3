import * as z from 'zod/mini';
import { COMMUNICATION_DECISIONS, WARNINGS } from '../domain/breach-record.js';
import { CATEGORIES, SEVERITIES, STATUSES } from '../domain/incident.js';
import { contactBody, dataSubjectsBody, personalDataBody, riskBody } from './breach-record.js';
import { described, instant, uuid } from './common.js';

const authorityNotificationSchema = described(
  z.strictObject({
    phase: described(z.enum(['initial', 'follow_up']), {
      description: '`initial` (POST …/notify) or `follow_up` (POST …/authority-updates, Art. 33(4)).',
    }),
    sentAt: instant('When it was sent to the authority.'),
    reference: z.optional(z.string()),
    summary: z.optional(z.string()),
    delayReason: z.optional(
      described(z.string(), { description: 'Why the notification came after the 72 hours.' }),
    ),
  }),
  { id: 'AuthorityNotification', description: 'One phase of the notification of the supervisory authority.' },
);

const obligationsSchema = described(
  z.strictObject({
    authorityNotification: described(z.enum(['required', 'not_required', 'done']), {
      description: '`required` unless `risk.level` is `unlikely` (`not_required`); `done` once notified.',
    }),
    dataSubjectCommunication: described(z.enum(['required', 'not_required', 'done', 'exempt']), {
      description:
        '`required` when `risk.level` is `high`, `not_required` otherwise; `done` or `exempt` once decided.',
    }),
    overdue: described(z.boolean(), {
      description: 'True while the notification is required and `notificationDeadline` has passed.',
    }),
    warnings: described(z.array(z.enum(WARNINGS)), {
      description: 'Stable codes for what the record still lacks.',
    }),
  }),
  {
    id: 'IncidentObligations',
    description: 'What the record obliges the organisation to do, computed as of the response.',
  },
);

/** The incident as the REST API returns it (`incidentView`): the response side of incidents.ts. */
export const incidentSchema = described(
  z.strictObject({
    id: uuid('The incident id.'),
    severity: z.enum(SEVERITIES),
    category: described(z.enum(CATEGORIES), { description: 'The kind of personal-data breach.' }),
    title: z.optional(z.string()),
    description: z.optional(z.string()),
    detectedAt: instant('When the incident was detected.'),
    status: described(z.enum(STATUSES), {
      description:
        '`declared → contained → notified → closed`; notify also straight from declared; close from any open status.',
    }),
    declaredAt: instant('When it was declared.'),
    containedAt: z.optional(instant('When it was contained.')),
    notifiedAt: z.optional(instant('When the supervisory authority was notified.')),
    authorityReference: z.optional(z.string()),
    closedAt: z.optional(instant('When it was closed.')),
    occurredAt: z.optional(instant('When the breach happened.')),
    dataSubjects: z.optional(dataSubjectsBody()),
    personalData: z.optional(personalDataBody()),
    likelyConsequences: z.optional(z.string()),
    measuresTaken: z.optional(z.string()),
    measuresProposed: z.optional(z.string()),
    contact: z.optional(contactBody()),
    risk: z.optional(riskBody()),
    authorityNotifications: z.optional(
      described(z.array(authorityNotificationSchema), {
        description: 'The initial notification and every follow-up, oldest first.',
      }),
    ),
    dataSubjectCommunication: z.optional(
      described(
        z.strictObject({
          decision: z.enum(COMMUNICATION_DECISIONS),
          at: instant('When the people were told, or the decision was taken.'),
          channel: z.optional(z.string()),
          note: z.optional(z.string()),
        }),
        { description: 'The recorded Art. 34 decision.' },
      ),
    ),
    history: described(
      z.array(
        z.strictObject({
          status: z.enum(STATUSES),
          at: instant('When the change was made.'),
          tokenId: described(z.string(), { description: 'The token that made the change.' }),
          note: z.optional(z.string()),
          fields: z.optional(
            described(z.array(z.string()), {
              description: 'The fields a change of the record set; absent on a move.',
            }),
          ),
        }),
      ),
      { description: 'Every change, oldest first; append-only.' },
    ),
    sequence: described(z.int().check(z.minimum(1)), {
      description: '1 at declaration, one more with every change: the `sequence` of the webhook payloads.',
    }),
    notificationDeadline: instant('`detectedAt` + 72 hours (Art. 33(1)).'),
    specialCategories: described(z.boolean(), {
      description: '`personalData.categories` holds an Art. 9 or 10 kind.',
    }),
    obligations: obligationsSchema,
  }),
  { id: 'Incident', description: 'A data-breach incident with its history.' },
);

export const incidentListSchema = described(
  z.strictObject({
    data: z.array(incidentSchema),
    nextCursor: described(z.nullable(z.string()), {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  }),
  { id: 'IncidentList', description: 'One page of incidents, newest first.' },
);
