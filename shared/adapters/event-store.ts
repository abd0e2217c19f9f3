import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ConflictError } from '../domain/errors.js';
import type { EventPosition } from '../domain/event-cursor.js';
import type { OrganisationEvent, UpcomingWindow } from '../domain/public-event.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import type { TransactionItem } from './transaction.js';

const sortKey = (position: EventPosition) => `${position.startsAt}#${position.id}`;
/** Sorts after every `<startsAt>#<uuid>` with that start time. */
const AFTER_ANY_ID = '#~';

/**
 * The event item. Only a public event gets gsi1 keys, so the index holds public events alone
 * (a sparse index): listing never reads, filters or counts a private one.
 */
export function eventWrite(organisationId: string, event: OrganisationEvent): TransactionItem {
  const index = event.public ? { gsi1pk: keys.publicEvents(organisationId), gsi1sk: sortKey(event) } : {};
  return {
    write: {
      Put: {
        TableName: tableName(),
        Item: marshall(
          { ...keys.event(organisationId, event.id), kind: 'event', ...index, ...event },
          { removeUndefinedValues: true },
        ),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    onConditionFailed: () => new ConflictError(`Event ${event.id} exists already.`),
  };
}

export interface EventPage {
  events: OrganisationEvent[];
  /** The last event of the page when more follow; absent on the last page. */
  next?: EventPosition;
}

/**
 * Public events starting within the window, soonest first: one Query on the organisation's own
 * index partition. `after` is rebuilt into a start key inside that partition, so a cursor can only
 * move within the caller's events. One more item than asked for is read to know whether a next page
 * exists, so the last page never carries a cursor to an empty one.
 */
export async function listUpcomingEvents(
  organisationId: string,
  window: UpcomingWindow,
  limit: number,
  after?: EventPosition,
): Promise<EventPage> {
  const partition = keys.publicEvents(organisationId);
  const upper = window.to === undefined ? undefined : `${window.to}${AFTER_ANY_ID}`;
  // DynamoDB refuses a start key outside the key condition. A position before the window (time moved
  // on since the cursor was issued) continues from the window's start; one after it has nothing left.
  let startKey: Record<string, string> | undefined;
  if (after) {
    const position = sortKey(after);
    if (upper !== undefined && position >= upper) return { events: [] };
    if (position >= window.from) {
      startKey = { gsi1pk: partition, gsi1sk: position, ...keys.event(organisationId, after.id) };
    }
  }
  const { Items } = await dynamodb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression:
        upper === undefined
          ? 'gsi1pk = :pk AND gsi1sk >= :from'
          : 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
      ExpressionAttributeValues: marshall({
        ':pk': partition,
        ':from': window.from,
        ...(upper ? { ':to': upper } : {}),
      }),
      Limit: limit + 1,
      ...(startKey ? { ExclusiveStartKey: marshall(startKey) } : {}),
    }),
  );
  const events = (Items ?? []).map((item) => toEvent(unmarshall(item)));
  if (events.length <= limit) return { events };
  const page = events.slice(0, limit);
  const last = page[page.length - 1];
  return last ? { events: page, next: { startsAt: last.startsAt, id: last.id } } : { events: page };
}

function toEvent(item: Record<string, unknown>): OrganisationEvent {
  return {
    id: String(item.id),
    title: String(item.title),
    startsAt: String(item.startsAt),
    endsAt: (item.endsAt as string | undefined) ?? null,
    location: (item.location as string | undefined) ?? null,
    url: (item.url as string | undefined) ?? null,
    public: item.public === true,
    createdAt: String(item.createdAt),
  };
}
