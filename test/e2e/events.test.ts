import { beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, call, postJson, problemOf, unthrottledOrganisation } from '../support/api.js';

interface PublicEvent {
  id: string;
  title: string;
  startsAt: string;
  endsAt: string | null;
  public: boolean;
}
interface EventList {
  data: PublicEvent[];
  nextCursor: string | null;
}

const inDays = (days: number, hour = 18) => {
  const date = new Date(Date.now() + days * 86_400_000);
  date.setUTCHours(hour, 0, 0, 0);
  return date.toISOString();
};

let token: string;
let other: string;
const published: PublicEvent[] = [];

async function publish(body: Record<string, unknown>) {
  const response = await postJson('/events', token, body);
  expect(response.status).toBe(201);
  return bodyOf<PublicEvent>(response);
}

beforeAll(async () => {
  token = (await unthrottledOrganisation()).writer;
  other = (await unthrottledOrganisation()).writer;
  for (const day of [9, 3, 5, 1, 7])
    published.push(await publish({ title: `Day ${day}`, startsAt: inDays(day) }));
  await publish({ title: 'Board meeting', startsAt: inDays(2), public: false });
  await publish({ title: 'Last week', startsAt: inDays(-7) });
  await postJson('/events', other, { title: 'Elsewhere', startsAt: inDays(4) });
});

describe('POST /events', () => {
  it('publishes an event in UTC, public by default, and answers 201', async () => {
    const event = await publish({
      title: 'Spring fair',
      startsAt: '2031-04-01T10:00:00+02:00',
      endsAt: '2031-04-01T18:00:00+02:00',
      location: 'Town hall',
      url: 'https://example.org/fair',
    });
    expect(event).toMatchObject({
      title: 'Spring fair',
      startsAt: '2031-04-01T08:00:00.000Z',
      endsAt: '2031-04-01T16:00:00.000Z',
      location: 'Town hall',
      url: 'https://example.org/fair',
      public: true,
    });
  });

  it('refuses an end before the start, naming endsAt', async () => {
    const problem = await problemOf(
      await postJson('/events', token, { title: 'Backwards', startsAt: inDays(3), endsAt: inDays(2) }),
      400,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => e.field)).toEqual(['endsAt']);
  });

  it('names every bad field, unknown ones included', async () => {
    const problem = await problemOf(
      await postJson('/events', token, { title: '', startsAt: 'tomorrow', url: 'ftp://x', organiser: 'Ada' }),
      400,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(['organiser', 'startsAt', 'title', 'url']);
  });
});

describe('GET /events', () => {
  it("lists the organisation's upcoming public events, soonest first, without past or private ones", async () => {
    const { data, nextCursor } = await bodyOf<EventList>(
      await call(`/events?to=${encodeURIComponent(inDays(10))}`, { token }),
    );
    expect(data.map((e) => e.title)).toEqual(['Day 1', 'Day 3', 'Day 5', 'Day 7', 'Day 9']);
    expect(nextCursor).toBeNull();
  });

  it('pages with limit and an opaque cursor until nextCursor is null', async () => {
    const query = `to=${encodeURIComponent(inDays(10))}`;
    const titles: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: EventList = await bodyOf<EventList>(
        await call(`/events?limit=2&${query}${cursor ? `&cursor=${cursor}` : ''}`, { token }),
      );
      titles.push(...page.data.map((e) => e.title));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(titles).toEqual(['Day 1', 'Day 3', 'Day 5', 'Day 7', 'Day 9']);
  });

  it('applies from and to', async () => {
    const { data } = await bodyOf<EventList>(
      await call(`/events?from=${encodeURIComponent(inDays(2))}&to=${encodeURIComponent(inDays(6))}`, {
        token,
      }),
    );
    expect(data.map((e) => e.title)).toEqual(['Day 3', 'Day 5']);
  });

  it("refuses another organisation's cursor, a cursor for other filters and a forged one with 400 invalid_cursor", async () => {
    const first = await bodyOf<EventList>(await call('/events?limit=1', { token }));
    expect(first.nextCursor).not.toBeNull();
    const cursor = String(first.nextCursor);
    await problemOf(await call(`/events?limit=1&cursor=${cursor}`, { token: other }), 400, 'invalid_cursor');
    await problemOf(
      await call(`/events?limit=1&to=${encodeURIComponent(inDays(30))}&cursor=${cursor}`, { token }),
      400,
      'invalid_cursor',
    );
    const forged = Buffer.from(JSON.stringify({ gsi1pk: 'ORG#x#PUBLICEVENTS', gsi1sk: '2000' })).toString(
      'base64url',
    );
    await problemOf(await call(`/events?cursor=${forged}`, { token }), 400, 'invalid_cursor');
    // The genuine cursor still works for its owner.
    expect((await call(`/events?limit=1&cursor=${cursor}`, { token })).status).toBe(200);
  });

  it('names every bad query parameter', async () => {
    const problem = await problemOf(
      await call('/events?limit=500&from=soon&sort=asc', { token }),
      400,
      'validation_failed',
    );
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(['query.from', 'query.limit', 'query.sort']);
  });

  it('answers 304 to If-None-Match while the page is unchanged', async () => {
    const path = `/events?to=${encodeURIComponent(inDays(10))}`;
    const etag = String((await call(path, { token })).headers.get('etag'));
    expect((await call(path, { token, headers: { 'If-None-Match': etag } })).status).toBe(304);
    await publish({ title: 'Day 4', startsAt: inDays(4) });
    expect((await call(path, { token, headers: { 'If-None-Match': etag } })).status).toBe(200);
  });
});
