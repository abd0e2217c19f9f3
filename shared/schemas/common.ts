import * as z from 'zod/mini';
import { decimalPlaces } from '../domain/decimal.js';
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

/**
 * Examples of instants a request may send: the document's examples are sent to the running service
 * by a test, so one that must be past or future stays so (the past one is before any deployment).
 */
export const PAST_INSTANT_EXAMPLE = '2026-03-14T18:30:00+01:00';
export const FUTURE_INSTANT_EXAMPLE = '2099-03-14T18:30:00+01:00';

/** Accepted with any offset; answered in UTC with milliseconds. */
export const instantInput = (description: string, example = FUTURE_INSTANT_EXAMPLE) =>
  described(z.iso.datetime({ offset: true }), {
    description: `${description} RFC 3339 date-time with an offset or Z; stored and returned in UTC.`,
    examples: [example],
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
    description: `${description} ${TRIMMED}, 1 to ${max} characters.`,
    examples: [example],
  });

export const TRIMMED = 'Leading and trailing white space is removed; what is left is';

/**
 * The largest magnitude a JSON number may have here: beyond 2^53 − 1 integers are no longer exact,
 * and DynamoDB's SDK refuses to store such a number.
 */
export const MAX_SAFE_NUMBER = Number.MAX_SAFE_INTEGER;

/**
 * A JSON number from `min` to `max` with at most `places` decimal places, and the document saying so
 * (`minimum`, `maximum`, `multipleOf`). The places are read from the number as sent (see
 * `decimalPlaces`), so `1e300` and `5e-324` are refused, never stored.
 */
export function decimalNumber(options: {
  min: number;
  /** The minimum itself is not allowed (`exclusiveMinimum`). */
  exclusiveMin?: boolean;
  max: number;
  places: number;
  description: string;
  example: number;
  rangeMessage: string;
  placesMessage: string;
}) {
  const { min, max, places } = options;
  return described(
    z.number().check(
      options.exclusiveMin ? z.gt(min, options.rangeMessage) : z.gte(min, options.rangeMessage),
      z.lte(max, options.rangeMessage),
      z.refine((value: number) => decimalPlaces(value) <= places, options.placesMessage),
    ),
    {
      description: options.description,
      examples: [options.example],
      multipleOf: Number((10 ** -places).toFixed(places)),
    },
  );
}

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
        'Stable machine-readable code to branch on, e.g. `unauthorized`, `insufficient_scope`, `not_found`, `no_report`, `method_not_allowed`, `validation_failed`, `malformed_json`, `invalid_cursor`, `invalid_transition`, `idempotency_conflict`, `payload_too_large`, `unsupported_media_type`, `headers_too_large`, `rate_limited`, `internal_error`.',
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
