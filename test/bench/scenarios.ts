import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import { eventWrite } from '../../shared/adapters/event-store.js';
import { impactReportWrites } from '../../shared/adapters/impact-store.js';
import { keys } from '../../shared/adapters/keys.js';
import { memberWrites } from '../../shared/adapters/member-store.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { addDays, utcDateOf } from '../../shared/domain/calendar.js';
import { newImpactReport } from '../../shared/domain/impact-report.js';
import { newMember } from '../../shared/domain/member.js';
import { newEvent } from '../../shared/domain/public-event.js';
import { DEFAULT_PAGE_SIZE } from '../../shared/schemas/pagination.js';
import type { FloorRead } from './floor-work.js';
import { applyInBulk } from './seed.js';

/** The organisation and token a scenario calls with: its own, so that seeded data and counters never mix. */
export interface BenchCaller {
  organisationId: string;
  tokenId: string;
  /** The whole header value, `Bearer svc_…`. */
  authorization: string;
  rateLimitPerMinute: number;
}

export type PathParams = Record<string, string>;

/**
 * One measured endpoint. Adding an endpoint to the benchmark is one entry here: what to seed for
 * the caller's organisation (through the service's own store code), and which DynamoDB reads the
 * floor makes per request besides the rate-limit write that every authenticated request costs.
 * The floor answers with the body the stack gave to the same request.
 */
export interface Scenario {
  /** Shown in the report; says what was seeded when that matters. */
  name: string;
  /** GET route under the base path, exactly as in shared/topology/routes.ts (`{name}` for a path parameter). */
  path: string;
  /** Scopes of the caller's token. */
  scopes: string;
  /** Seeds what the endpoint reads, for the caller's organisation; returns the path parameters to call with. */
  seed?: (caller: BenchCaller) => Promise<PathParams | undefined>;
  /** The reads the endpoint's handler makes per request, in order, as the store code makes them. */
  floorReads: (caller: BenchCaller, params: PathParams) => FloorRead[];
}

const MEMBERSHIP_TYPES = ['full', 'associate', 'student'];
const REGIONS = ['north', 'south', 'east', 'west', undefined];

/**
 * Members who joined on every day of the last year: the 365-day window then holds as many day
 * buckets as it ever can, so 10,000 members cost what any larger number would.
 */
async function seedMembers(organisationId: string, count: number): Promise<undefined> {
  const now = new Date();
  const today = utcDateOf(now);
  const transactions = Array.from({ length: count }, (_, i) => {
    const member = newMember(
      randomUUID(),
      {
        membershipType: MEMBERSHIP_TYPES[i % MEMBERSHIP_TYPES.length] as string,
        region: REGIONS[i % REGIONS.length],
        joinedAt: addDays(today, -(i % 365)),
      },
      now,
    );
    return memberWrites(organisationId, member);
  });
  await applyInBulk(transactions);
  return undefined;
}

/** What readMemberCounts reads: the statistics partition from the first day of the 365-day window. */
function memberCountsQuery({ organisationId }: BenchCaller): FloorRead[] {
  const from = keys.membersJoinedOn(organisationId, addDays(utcDateOf(new Date()), -364)).sk;
  return [
    {
      kind: 'Query',
      input: {
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        ExpressionAttributeValues: marshall({ ':pk': keys.memberStatistics(organisationId), ':from': from }),
        ConsistentRead: true,
      },
    },
  ];
}

const membersScenario = (count: number): Scenario => ({
  name: `GET /members (${count.toLocaleString('en')} members)`,
  path: '/members',
  scopes: 'read',
  seed: (caller) => seedMembers(caller.organisationId, count),
  floorReads: memberCountsQuery,
});

export const scenarios: Scenario[] = [
  { name: 'GET /ping', path: '/ping', scopes: 'read', floorReads: () => [] },
  membersScenario(10),
  membersScenario(10_000),
  {
    name: 'GET /events (40 events, 30 upcoming public)',
    path: '/events',
    scopes: 'read',
    seed: async ({ organisationId }) => {
      const now = new Date();
      const events = Array.from({ length: 40 }, (_, i) =>
        newEvent(
          randomUUID(),
          {
            title: `Bench event ${i}`,
            startsAt: new Date(now.getTime() + (i + 1) * 86_400_000).toISOString(),
            location: 'Town hall, Market Square 1',
            url: 'https://example.org/events/bench',
            public: i % 4 !== 3,
          },
          now,
        ),
      );
      await applyInBulk(events.map((event) => [eventWrite(organisationId, event)]));
      return undefined;
    },
    // What listUpcomingEvents reads for a first page: the sparse public-events index, one more than the page.
    floorReads: ({ organisationId }) => [
      {
        kind: 'Query',
        input: {
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk >= :from',
          ExpressionAttributeValues: marshall({
            ':pk': keys.publicEvents(organisationId),
            ':from': new Date().toISOString(),
          }),
          Limit: DEFAULT_PAGE_SIZE + 1,
        },
      },
    ],
  },
  {
    name: 'GET /impact',
    path: '/impact',
    scopes: 'read',
    seed: async ({ organisationId }) => {
      const metrics = ['volunteerHours', 'mealsServed', 'peopleHelped', 'eventsHeld', 'donations'].map(
        (key, i) => ({ key, label: `Bench ${key}`, value: 1000 * (i + 1), unit: 'count' }),
      );
      const report = newImpactReport(
        randomUUID(),
        {
          title: 'Annual impact report',
          periodStart: '2025-01-01',
          periodEnd: '2025-12-31',
          summary: 'A year of work for and with our members. '.repeat(10),
          metrics,
        },
        new Date(),
      );
      await commitTransaction(impactReportWrites(organisationId, report));
      return undefined;
    },
    // What latestImpactReport reads.
    floorReads: ({ organisationId }) => [
      {
        kind: 'GetItem',
        input: { Key: marshall(keys.latestImpactReport(organisationId)), ConsistentRead: true },
      },
    ],
  },
];
