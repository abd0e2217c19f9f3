import * as z from 'zod/mini';
import { described, instant, instantInput, text, uuid } from './common.js';
import { cursorParam, limitParam } from './pagination.js';

const endsNotBeforeStart = z.refine<{ startsAt: string; endsAt?: string | undefined }>(
  (event) => event.endsAt === undefined || Date.parse(event.endsAt) >= Date.parse(event.startsAt),
  { message: 'endsAt may not precede startsAt.', path: ['endsAt'] },
);

const httpUrl = (description: string) =>
  described(z.httpUrl().check(z.maxLength(2048)), {
    description,
    examples: ['https://example.org/events/spring-fair'],
  });

export const newEventBody = described(
  z
    .strictObject({
      title: text('The event title.', 200, 'Spring fair'),
      startsAt: instantInput('When the event starts.'),
      endsAt: z.optional(instantInput('When the event ends; not before `startsAt`.')),
      location: z.optional(text('Where the event takes place.', 200, 'Town hall, Market Square 1')),
      url: z.optional(httpUrl('An http(s) page about the event.')),
      public: described(z._default(z.boolean(), true), {
        description: 'Whether GET /events lists the event. Default true.',
      }),
    })
    .check(endsNotBeforeStart),
  { id: 'NewEvent', description: 'An event to publish.' },
);

export const eventSchema = described(
  z.strictObject({
    id: uuid('The event id.'),
    title: z.string(),
    startsAt: instant('When the event starts.'),
    endsAt: z.nullable(instant('When the event ends.')),
    location: z.nullable(z.string()),
    url: z.nullable(z.string()),
    public: z.boolean(),
    createdAt: instant('When the event was published.'),
  }),
  { id: 'Event', description: 'An event of the organisation.' },
);

export const eventsQuery = z
  .strictObject({
    limit: z.optional(limitParam()),
    cursor: z.optional(cursorParam('`nextCursor` of the previous page, with the same `from` and `to`.')),
    from: z.optional(instantInput('Only events starting at or after this time (never before now).')),
    to: z.optional(instantInput('Only events starting at or before this time.')),
  })
  .check(
    z.refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.to) >= Date.parse(q.from), {
      message: 'to may not precede from.',
      path: ['to'],
    }),
  );

export const eventListSchema = described(
  z.strictObject({
    data: described(z.array(eventSchema), { description: 'Upcoming public events, soonest first.' }),
    nextCursor: described(z.nullable(z.string()), {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  }),
  { id: 'EventList', description: 'One page of upcoming public events.' },
);
