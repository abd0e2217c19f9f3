import * as z from 'zod/mini';
import './messages.js';

/**
 * Building blocks shared by the request and response schemas. They are zod/mini (a few KB in a
 * Lambda bundle); the OpenAPI document is generated from the same schema objects at build time,
 * and the metadata registered here (ids, descriptions, examples) is what the document shows.
 */

export type Meta = z.core.GlobalMeta;

/** Describes a schema in the document. Each call must get its own schema instance: metadata is per instance. */
export function described<T extends z.ZodMiniType>(schema: T, meta: Meta): T {
  z.globalRegistry.add(schema, meta);
  return schema;
}

export const uuid = (description: string) =>
  described(z.uuid(), { description, examples: ['5f0c7a2e-8d1b-4c3e-9a6f-2b7d4e1c0a93'] });

/** Accepted with any offset; answered in UTC with milliseconds. */
export const instantInput = (description: string) =>
  described(z.iso.datetime({ offset: true }), {
    description: `${description} RFC 3339 date-time with an offset or Z; stored and returned in UTC.`,
    examples: ['2027-03-14T18:30:00+01:00'],
  });

export const instant = (description: string) =>
  described(z.iso.datetime(), {
    description: `${description} UTC, with milliseconds.`,
    examples: ['2027-03-14T17:30:00.000Z'],
  });

export const calendarDate = (description: string) =>
  described(z.iso.date(), {
    description: `${description} A calendar date, YYYY-MM-DD.`,
    examples: ['2026-01-31'],
  });

/** Trimmed text with bounds; a blank string is refused rather than stored. */
export const text = (description: string, max: number, example: string) =>
  described(z.string().check(z.trim(), z.minLength(1), z.maxLength(max)), {
    description,
    examples: [example],
  });

/**
 * A category code (membership type, region): letters, digits, `-` and `_`. Codes are case-sensitive.
 * The narrow alphabet keeps free text, and with it personal data, out of the statistics.
 */
export const CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;
export const code = (description: string, example: string) =>
  described(
    z
      .string()
      .check(z.regex(CODE_PATTERN, 'Use 1 to 40 letters, digits, - or _, starting with a letter or digit.')),
    {
      description: `${description} 1 to 40 letters, digits, \`-\` or \`_\`; case-sensitive.`,
      examples: [example],
    },
  );

export const fieldIssueSchema = described(
  z.strictObject({
    field: described(z.string(), {
      description:
        'The offending field: a body path such as `metrics[2].key`, or `query.<name>` for a query parameter.',
    }),
    message: z.string(),
  }),
  { id: 'FieldIssue', description: 'One reason a request was refused.' },
);

export const problemSchema = described(
  z.strictObject({
    type: described(z.string(), { description: 'A URI naming the problem type (`urn:problem:<code>`).' }),
    title: described(z.string(), { description: 'The status phrase.' }),
    status: described(z.int(), { description: 'The HTTP status code, as sent.' }),
    detail: described(z.string(), { description: 'What went wrong, for a person to read.' }),
    code: described(z.string(), {
      description:
        'Stable machine-readable code to branch on, e.g. `unauthorized`, `insufficient_scope`, `not_found`, `no_report`, `validation_failed`, `malformed_json`, `invalid_cursor`, `payload_too_large`, `unsupported_media_type`, `rate_limited`, `internal_error`.',
      examples: ['validation_failed'],
    }),
    errors: z.optional(
      described(z.array(fieldIssueSchema), { description: 'Every offending field (400 only).' }),
    ),
  }),
  {
    id: 'Problem',
    description: 'RFC 9457 problem details, with a stable `code`. Sent as `application/problem+json`.',
  },
);

export type Problem = z.infer<typeof problemSchema>;

/** For endpoints that take no query parameters: any parameter is refused, as an unknown field is. */
export const noQuery = z.strictObject({});
