import * as z from 'zod/mini';
import { calendarDate, code, described, instant, uuid } from './common.js';

export const newMemberBody = described(
  z.strictObject({
    membershipType: code('The kind of membership, as the organisation names it.', 'regular'),
    joinedAt: z.optional(calendarDate('The day the member joined; default today (UTC). Not after tomorrow.')),
    region: z.optional(code('The region or chapter the member belongs to.', 'north')),
  }),
  {
    id: 'NewMember',
    description: 'A member to record. Only categories are taken: no name, contact or other personal data.',
  },
);

export const memberSchema = described(
  z.strictObject({
    id: uuid('The member id.'),
    membershipType: code('The kind of membership.', 'regular'),
    region: z.nullable(code('The region, or null when none was given.', 'north')),
    joinedAt: calendarDate('The day the member joined.'),
    createdAt: instant('When the member was recorded.'),
  }),
  { id: 'Member', description: 'A recorded member: an id and categories, nothing about the person.' },
);

const shownCount = {
  count: described(z.int().check(z.minimum(0)), { description: 'The number of members.' }),
  withheld: z.literal(false),
};
const withheldCount = {
  count: described(z.null(), { description: 'Withheld.' }),
  withheld: z.literal(true),
};

const figureMeta = (what: string) => ({
  description: `${what}. \`withheld: true\` and \`count: null\` when the count is from 1 to \`minimumGroupSize - 1\`, or when showing it would let such a count be worked out from the other figures.`,
});

const figure = (what: string) =>
  described(z.union([z.strictObject(shownCount), z.strictObject(withheldCount)]), figureMeta(what));

export const figureSchema = described(z.union([z.strictObject(shownCount), z.strictObject(withheldCount)]), {
  id: 'Figure',
  ...figureMeta('A count of members'),
});

const typeGroup = described(
  z.union([
    z.strictObject({ membershipType: z.string(), ...shownCount }),
    z.strictObject({ membershipType: z.string(), ...withheldCount }),
  ]),
  { id: 'MembershipTypeFigure', ...figureMeta('Members of one membership type') },
);

const regionGroup = described(
  z.union([
    z.strictObject({ region: z.nullable(z.string()), ...shownCount }),
    z.strictObject({ region: z.nullable(z.string()), ...withheldCount }),
  ]),
  { id: 'RegionFigure', ...figureMeta('Members of one region (`region: null`: recorded without a region)') },
);

export const memberStatisticsSchema = described(
  z.strictObject({
    asOf: instant(
      'When the figures last changed: the last recorded member, or the start of the current UTC day.',
    ),
    minimumGroupSize: described(z.int().check(z.minimum(2)), {
      description: 'Counts from 1 to this value minus one are withheld.',
      examples: [5],
    }),
    total: figureSchema,
    joined: z.strictObject({
      last30Days: figure('Members who joined on one of the last 30 UTC calendar days, today included'),
      last365Days: figure('Members who joined on one of the last 365 UTC calendar days, today included'),
    }),
    byMembershipType: described(z.array(typeGroup), {
      description: 'One entry per membership type, by name.',
    }),
    byRegion: described(z.array(regionGroup), {
      description: 'One entry per region, by name; members without a region last, as `region: null`.',
    }),
  }),
  {
    id: 'MemberStatistics',
    description:
      "Anonymised statistics of the caller's organisation: no identifiers or per-person data, and no count of a small group, directly or by subtraction.",
  },
);
