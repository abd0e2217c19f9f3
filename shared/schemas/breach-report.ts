import * as z from 'zod/mini';
import { REPORT_SECTION_KEYS } from '../domain/breach-report.js';
import { described, instant, uuid } from './common.js';
import { cursorParam, limitParam } from './pagination.js';

export const breachReportSchema = described(
  z.strictObject({
    incidentId: uuid('The incident id.'),
    organisationId: uuid('The organisation that keeps the record.'),
    generatedAt: instant('When this report was made from the record.'),
    sections: described(
      z.array(
        z.strictObject({
          key: described(z.enum(REPORT_SECTION_KEYS), {
            description:
              '`nature`, `contact`, `consequences` and `measures` are Art. 33(3)(a) to (d); `notification` the deadline and every phase; `data_subject_communication` the Art. 34 decision.',
          }),
          title: z.string(),
          content: described(z.string(), { description: 'Plain text; lines separated by `\\n`.' }),
        }),
      ),
      { description: 'One section for each item of Art. 33(3), then the notification and Art. 34.' },
    ),
    timeline: described(z.array(z.strictObject({ at: instant('When.'), what: z.string() })), {
      description: 'What happened and what was done, oldest first.',
    }),
  }),
  {
    id: 'BreachReport',
    description: 'The notification for the supervisory authority, made from the record.',
  },
);

export const breachReportHtmlSchema = described(z.string(), {
  description: 'The same report as a printable, self-contained HTML page (no scripts, no outside resources).',
});

export const breachRegisterRowSchema = described(
  z.strictObject({
    id: uuid('The incident id.'),
    status: z.string(),
    severity: z.string(),
    category: z.string(),
    title: z.nullable(z.string()),
    occurredAt: z.nullable(instant('When it happened.')),
    detectedAt: instant('When it was detected.'),
    declaredAt: instant('When it was declared.'),
    notificationDeadline: instant('`detectedAt` + 72 hours.'),
    riskLevel: z.nullable(z.string()),
    specialCategories: z.boolean(),
    dataSubjectCategories: z.array(z.string()),
    approximateDataSubjects: z.nullable(z.int()),
    personalDataCategories: z.array(z.string()),
    approximateRecords: z.nullable(z.int()),
    likelyConsequences: z.nullable(z.string()),
    measuresTaken: z.nullable(z.string()),
    authorityNotification: z.string(),
    overdue: z.boolean(),
    notifiedAt: z.nullable(instant('When the authority was notified.')),
    authorityReference: z.nullable(z.string()),
    delayReason: z.nullable(z.string()),
    followUps: z.int(),
    dataSubjectCommunication: z.nullable(z.string()),
    closedAt: z.nullable(instant('When it was closed.')),
  }),
  { id: 'BreachRegisterRow', description: 'One incident in the register; the columns of the CSV.' },
);

export const breachRegisterSchema = described(
  z.strictObject({
    data: z.array(breachRegisterRowSchema),
    nextCursor: described(z.nullable(z.string()), {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  }),
  { id: 'BreachRegister', description: 'One page of the register, newest first.' },
);

export const breachRegisterCsvSchema = described(z.string(), {
  description:
    "The whole register as CSV (RFC 4180, CRLF, a header row with the JSON field names). A cell that starts with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'` so that no spreadsheet runs it.",
});

/** `?limit&cursor` as every list, and `format=csv` for the whole register as one file. */
export const breachRegisterQuery = z.strictObject({
  limit: z.optional(limitParam()),
  cursor: z.optional(cursorParam()),
  format: z.optional(
    described(z.enum(['json', 'csv']), {
      description:
        '`csv` for the whole register as one CSV file (as `Accept: text/csv`); default `json`, paged.',
      examples: ['json'],
    }),
  ),
});
