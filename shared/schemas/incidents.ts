import * as z from 'zod/mini';
import { CATEGORIES, SEVERITIES } from '../domain/incident.js';
import { breachRecordShape } from './breach-record.js';
import { described, PAST_INSTANT_EXAMPLE, text } from './common.js';

const timestamp = (description: string) =>
  described(z.iso.datetime({ offset: true }), {
    description: `${description} RFC 3339 date-time with an offset or Z; stored and returned in UTC.`,
    examples: [PAST_INSTANT_EXAMPLE],
  });

const note = (description: string, example: string) => text(description, 2000, example);

export const declareIncidentBody = described(
  z.strictObject({
    severity: described(z.enum(SEVERITIES), {
      description: 'How serious the breach is: `low`, `medium`, `high` or `critical`.',
      examples: ['high'],
    }),
    category: described(z.enum(CATEGORIES), {
      description:
        'The kind of personal-data breach: `confidentiality` (disclosed or accessed), `integrity` (altered) or `availability` (lost or unreachable).',
      examples: ['confidentiality'],
    }),
    detectedAt: timestamp(
      'When the organisation became aware of the breach: the 72-hour notification clock starts here. Not in the future.',
    ),
    title: z.optional(
      text('A short name for the incident. Kept in the API, never sent in a webhook.', 200, 'Laptop lost'),
    ),
    description: z.optional(
      text(
        'What happened, for the record. Kept in the API, never sent in a webhook.',
        10_000,
        'A laptop with the membership list was left on a train.',
      ),
    ),
    ...breachRecordShape(),
  }),
  { id: 'DeclareIncident', description: 'A data-breach incident to declare (status `declared`).' },
);

export const containIncidentBody = described(
  z.strictObject({
    note: z.optional(note('What was done to contain it; kept in the history.', 'Disk wiped remotely')),
  }),
  { id: 'ContainIncident', description: 'Optional: a POST without a body is accepted.' },
);

export const closeIncidentBody = described(
  z.strictObject({
    note: z.optional(note('Why the incident is closed; kept in the history.', 'Device recovered')),
  }),
  { id: 'CloseIncident', description: 'Optional: a POST without a body is accepted.' },
);

export const notifyIncidentBody = described(
  z.strictObject({
    authorityReference: z.optional(
      text(
        "The supervisory authority's reference for the notification (its case or file number).",
        200,
        'DPA-2026-17',
      ),
    ),
    notifiedAt: z.optional(timestamp('When the supervisory authority was notified; default now.')),
    note: z.optional(note('A note kept in the history with the move.', 'Notified by the online form')),
    summary: z.optional(
      text(
        'What the initial notification told the authority.',
        10_000,
        'Initial notification via the online form.',
      ),
    ),
    delayReason: z.optional(
      text(
        'Why the notification comes later than 72 hours after detection: required then (Art. 33(1)).',
        4000,
        'The breach was only understood after the forensic analysis.',
      ),
    ),
  }),
  {
    id: 'NotifyIncident',
    description:
      'The notification of the supervisory authority. Optional: a POST without a body is accepted.',
  },
);
