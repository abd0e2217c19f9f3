import * as z from 'zod/mini';
import { CATEGORIES, SEVERITIES, STATUSES } from '../domain/incident.js';
import { described, instant, uuid } from './common.js';

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
    history: described(
      z.array(
        z.strictObject({
          status: z.enum(STATUSES),
          at: instant('When the move was made.'),
          tokenId: described(z.string(), { description: 'The token that made the move.' }),
          note: z.optional(z.string()),
        }),
      ),
      { description: 'Every move, oldest first.' },
    ),
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
