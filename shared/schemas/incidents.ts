import * as z from 'zod/mini';
import { CATEGORIES, SEVERITIES } from '../domain/incident.js';

const timestamp = z.iso.datetime({ offset: true });
const note = z.string().check(z.trim(), z.minLength(1), z.maxLength(2000));

export const declareIncidentBody = z.strictObject({
  severity: z.enum(SEVERITIES),
  category: z.enum(CATEGORIES),
  detectedAt: timestamp,
  title: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
  description: z.optional(z.string().check(z.maxLength(10_000))),
});

export const containIncidentBody = z.strictObject({ note: z.optional(note) });
export const closeIncidentBody = containIncidentBody;

export const notifyIncidentBody = z.strictObject({
  authorityReference: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
  notifiedAt: z.optional(timestamp),
  note: z.optional(note),
});
