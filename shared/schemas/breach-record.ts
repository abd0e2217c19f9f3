import * as z from 'zod/mini';
import {
  COMMUNICATION_DECISIONS,
  DATA_SUBJECT_CATEGORIES,
  PERSONAL_DATA_CATEGORIES,
  RISK_LEVELS,
} from '../domain/breach-record.js';
import { described, PAST_INSTANT_EXAMPLE, text } from './common.js';

/**
 * The Art. 33(3) record as a request sends it: on a declaration and in `PATCH /incidents/{id}`. The
 * cross-field rules (`occurredAt` not after `detectedAt`, `unlikely` with a rationale) are the
 * domain's (`shared/domain/incident.ts`), as PATCH checks them against the stored incident.
 */

/**
 * An address a person can write to: a local part without spaces or brackets, and a domain of
 * letter-or-digit labels (no label starting or ending with `-`). A pattern rather than a `format`, so
 * that what the API accepts and what the document promises are the one rule.
 */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Before the declaration example's `detectedAt` (PAST_INSTANT_EXAMPLE), as the rule wants. */
const OCCURRED_EXAMPLE = '2026-03-13T21:00:00+01:00';

const pastInstant = (description: string, example = PAST_INSTANT_EXAMPLE) =>
  described(z.iso.datetime({ offset: true }), {
    description: `${description} RFC 3339 date-time with an offset or Z; stored and returned in UTC.`,
    examples: [example],
  });

/** An approximate count: Art. 33(3)(a) asks for approximate numbers, so 0 is allowed but not a fraction. */
const count = (description: string, example: number) =>
  described(z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER)), {
    description: `${description} A whole number from 0.`,
    examples: [example],
  });

const categories = <T extends readonly [string, ...string[]]>(
  values: T,
  description: string,
  example: T[number],
) =>
  described(z.array(z.enum(values)).check(z.minLength(1), z.maxLength(values.length)), {
    description: `${description} One or more of ${values.map((v) => `\`${v}\``).join(', ')}.`,
    examples: [[example]],
  });

export const dataSubjectsBody = () =>
  described(
    z.strictObject({
      categories: categories(DATA_SUBJECT_CATEGORIES, 'Who the data is about.', 'members'),
      approximateCount: z.optional(count('About how many people are concerned.', 120)),
    }),
    { description: 'The people concerned (Art. 33(3)(a)).' },
  );

export const personalDataBody = () =>
  described(
    z.strictObject({
      categories: categories(
        PERSONAL_DATA_CATEGORIES,
        'The kinds of personal data concerned; health to criminal_records are the Art. 9 and 10 kinds (`specialCategories`).',
        'contact',
      ),
      approximateRecords: z.optional(count('About how many records are concerned.', 120)),
    }),
    { description: 'The personal data concerned (Art. 33(3)(a)).' },
  );

export const contactBody = () =>
  described(
    z.strictObject({
      name: text('The name of the data-protection officer or contact point.', 200, 'Data protection officer'),
      email: described(z.string().check(z.regex(EMAIL, 'Use an email address.'), z.maxLength(254)), {
        description: 'Where the authority can get more information: an email address.',
        examples: ['dpo@example.org'],
      }),
    }),
    { description: 'The DPO or other contact point (Art. 33(3)(b)).' },
  );

export const riskBody = () =>
  described(
    z.strictObject({
      level: described(z.enum(RISK_LEVELS), {
        description:
          'The risk to the rights and freedoms of the people concerned: `unlikely` (no notification needed; needs a `rationale`), `risk` (notify the authority) or `high` (also tell the people concerned, Art. 34).',
        examples: ['high'],
      }),
      rationale: z.optional(
        text(
          'Why the risk is assessed so; required for `unlikely`, the documented reason not to notify.',
          4000,
          'Contact details of 120 members, including minors, readable by anyone who finds the laptop.',
        ),
      ),
    }),
    { description: 'The assessed risk.' },
  );

const longText = (description: string, example: string) => text(description, 10_000, example);

/** The record's fields, each optional: the shape of a declaration's extra fields and of a PATCH. */
export const breachRecordShape = () => ({
  occurredAt: z.optional(
    pastInstant('When the breach happened, when known; not after `detectedAt`.', OCCURRED_EXAMPLE),
  ),
  dataSubjects: z.optional(dataSubjectsBody()),
  personalData: z.optional(personalDataBody()),
  likelyConsequences: z.optional(
    longText('The likely consequences of the breach (Art. 33(3)(c)).', 'Phishing messages to members.'),
  ),
  measuresTaken: z.optional(
    longText('Measures taken to address the breach (Art. 33(3)(d)).', 'The laptop was wiped remotely.'),
  ),
  measuresProposed: z.optional(
    longText('Measures proposed, including to mitigate its effects (Art. 33(3)(d)).', 'Encrypt all laptops.'),
  ),
  contact: z.optional(contactBody()),
  risk: z.optional(riskBody()),
});

export const amendIncidentBody = described(
  z
    .strictObject(breachRecordShape())
    .check(
      z.refine(
        (patch: object) => Object.keys(patch).length > 0,
        'Send at least one field of the record to change.',
      ),
    ),
  {
    id: 'AmendIncident',
    description:
      'The fields of the record to replace; the others stay as they are. Kept in the API, never sent in a webhook.',
  },
);

export const authorityUpdateBody = described(
  z.strictObject({
    sentAt: z.optional(pastInstant('When the follow-up was sent to the authority; default now.')),
    reference: z.optional(text("The authority's reference for this exchange.", 200, 'DPA-2026-17/2')),
    summary: text(
      'What the follow-up told the authority (Art. 33(4)).',
      10_000,
      'Forensic report: no copies made.',
    ),
  }),
  {
    id: 'AuthorityUpdate',
    description: 'A follow-up phase of the notification of the supervisory authority.',
  },
);

export const dataSubjectCommunicationBody = described(
  z.strictObject({
    decision: described(z.enum(COMMUNICATION_DECISIONS), {
      description:
        '`communicated` (each person was told), `public_notice` (individual messages would be disproportionate, Art. 34(3)(c)), `exempt_encrypted` (the data was unintelligible to others, Art. 34(3)(a)) or `exempt_mitigated` (later measures make the high risk unlikely, Art. 34(3)(b)). An exemption needs a `note`.',
      examples: ['communicated'],
    }),
    at: z.optional(pastInstant('When the people were told, or the decision was taken; default now.')),
    channel: z.optional(text('How they were told.', 200, 'email')),
    note: z.optional(text('Why; required for an exemption.', 4000, 'Sent to every affected member.')),
  }),
  { id: 'DataSubjectCommunication', description: 'The Art. 34 decision on telling the people concerned.' },
);
