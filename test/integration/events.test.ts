import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventWrite, listUpcomingEvents } from '../../shared/adapters/event-store.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { newEvent, type OrganisationEvent, upcomingWindow } from '../../shared/domain/public-event.js';
import { useFreshTable } from '../support/table.js';

const now = new Date('2026-11-22T10:00:00.000Z');
const window = (from?: string, to?: string) => {
  const result = upcomingWindow(now, from, to);
  if (!result) throw new Error('empty window');
  return result;
};

beforeAll(async () => {
  await useFreshTable();
});

async function publish(
  org: string,
  startsAt: string,
  extra: Partial<{ public: boolean; title: string }> = {},
) {
  const event = newEvent(
    randomUUID(),
    { title: extra.title ?? startsAt, startsAt, public: extra.public ?? true },
    now,
  );
  await commitTransaction([eventWrite(org, event)]);
  return event;
}

async function allPages(
  org: string,
  limit: number,
  from?: string,
  to?: string,
): Promise<OrganisationEvent[][]> {
  const pages: OrganisationEvent[][] = [];
  let after: { startsAt: string; id: string } | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await listUpcomingEvents(org, window(from, to), limit, after);
    pages.push(page.events);
    if (!page.next) return pages;
    after = page.next;
  }
  throw new Error('pagination did not end');
}

describe('upcoming events', () => {
  it('lists public events from now on, soonest first, never past or private ones', async () => {
    const org = randomUUID();
    await publish(org, '2026-11-22T09:59:59.999Z');
    const later = await publish(org, '2027-03-01T10:00:00.000Z');
    const sooner = await publish(org, '2026-12-01T10:00:00.000Z');
    await publish(org, '2026-12-15T10:00:00.000Z', { public: false });
    const startingNow = await publish(org, '2026-11-22T10:00:00.000Z');
    const { events, next } = await listUpcomingEvents(org, window(), 10);
    expect(events.map((e) => e.id)).toEqual([startingNow.id, sooner.id, later.id]);
    expect(events[0]).toEqual(startingNow);
    expect(next).toBeUndefined();
  });

  it('pages through every event exactly once, with no cursor after the last page', async () => {
    const org = randomUUID();
    const published: OrganisationEvent[] = [];
    for (let day = 1; day <= 7; day++) published.push(await publish(org, `2027-01-0${day}T10:00:00.000Z`));
    // Two events at the same time are ordered by id and both listed.
    published.push(await publish(org, '2027-01-03T10:00:00.000Z'));
    const pages = await allPages(org, 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 2]);
    const ids = pages.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(8);
    expect(ids.sort()).toEqual(published.map((e) => e.id).sort());
    const starts = pages.flat().map((e) => e.startsAt);
    expect(starts).toEqual([...starts].sort());
    // Exactly a page's worth left: the last full page carries no cursor to an empty one.
    expect((await allPages(org, 4)).map((p) => p.length)).toEqual([4, 4]);
  });

  it('applies from and to as inclusive bounds on the start time', async () => {
    const org = randomUUID();
    await publish(org, '2027-02-01T00:00:00.000Z');
    const inside = await publish(org, '2027-02-02T00:00:00.000Z');
    const edge = await publish(org, '2027-02-03T00:00:00.000Z');
    await publish(org, '2027-02-03T00:00:00.001Z');
    const { events } = await listUpcomingEvents(
      org,
      window('2027-02-02T00:00:00Z', '2027-02-03T00:00:00Z'),
      10,
    );
    expect(events.map((e) => e.id)).toEqual([inside.id, edge.id]);
  });

  it("reads only the caller's partition, whatever position a cursor names", async () => {
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const own = await publish(mine, '2027-05-01T10:00:00.000Z');
    const foreign = await publish(theirs, '2027-04-01T10:00:00.000Z');
    await publish(theirs, '2027-06-01T10:00:00.000Z');
    // A position taken from the other organisation's events still pages within mine.
    const page = await listUpcomingEvents(mine, window(), 10, { startsAt: foreign.startsAt, id: foreign.id });
    expect(page.events.map((e) => e.id)).toEqual([own.id]);
  });

  it('continues from the start of the window when the cursor position has meanwhile become past', async () => {
    const org = randomUUID();
    const upcoming = await publish(org, '2026-12-01T10:00:00.000Z');
    const page = await listUpcomingEvents(org, window(), 10, {
      startsAt: '2026-11-01T00:00:00.000Z',
      id: randomUUID(),
    });
    expect(page.events.map((e) => e.id)).toEqual([upcoming.id]);
    const beyond = await listUpcomingEvents(org, window(undefined, '2026-12-31T00:00:00Z'), 10, {
      startsAt: '2027-01-01T00:00:00.000Z',
      id: randomUUID(),
    });
    expect(beyond).toEqual({ events: [] });
  });
});
