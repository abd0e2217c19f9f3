import { randomUUID } from 'node:crypto';
import { PutItemCommand, paginateQuery } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { logger } from '../observability.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import { OUTBOX_RETENTION_SECONDS } from './outbox.js';

/** An outbox item the relay put on the bus: its event, and when its copy was put on the stream. */
export interface RelayedItem {
  eventId: string;
  onStreamAt: string;
}

/**
 * Records that every delivery of these events is on the bus: one item per relayed batch (up to 500
 * event ids, about 20 KB), where a mark per outbox item would cost a write per event. It also keeps
 * the newest time at which a copy it names was put on the stream: how far the relay has got. A
 * receipt that fails to be written only means the sweep puts the events on the stream again later,
 * with the same delivery ids: a duplicate the subscriber drops, never a loss; so it is logged, not
 * thrown.
 */
export async function writeRelayReceipt(items: readonly RelayedItem[], at = new Date()): Promise<void> {
  if (items.length === 0) return;
  const eventIds = items.map((item) => item.eventId);
  const relayedUpTo = items.map((item) => item.onStreamAt).reduce((a, b) => (a > b ? a : b));
  try {
    await dynamodb().send(
      new PutItemCommand({
        TableName: tableName(),
        Item: marshall({
          pk: keys.relayReceipts,
          // The time first, so that the sweep reads receipts from a moment on; the id keeps two
          // receipts of the same millisecond apart.
          sk: `${at.toISOString()}#${randomUUID()}`,
          kind: 'relay-receipt',
          eventIds: [...new Set(eventIds)],
          relayedUpTo,
          expiresAt: Math.floor(at.getTime() / 1000) + OUTBOX_RETENTION_SECONDS,
        }),
      }),
    );
  } catch (error) {
    logger.warn('A relay receipt could not be written; the sweep will put its events on the stream again', {
      events: eventIds.length,
      error,
    });
  }
}

/** What the receipts written at or after a moment say. */
export interface RelayedSince {
  eventIds: Set<string>;
  /** The newest time a copy they name was put on the stream (undefined: no receipt). */
  relayedUpTo: string | undefined;
}

/** The events named by a receipt written at or after `since`, and how far the relay has got. */
export async function relayedSince(since: Date): Promise<RelayedSince> {
  const relayed: RelayedSince = { eventIds: new Set(), relayedUpTo: undefined };
  const pages = paginateQuery(
    { client: dynamodb() },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk >= :since',
      ExpressionAttributeValues: marshall({ ':pk': keys.relayReceipts, ':since': since.toISOString() }),
    },
  );
  for await (const page of pages) {
    for (const raw of page.Items ?? []) {
      const receipt = unmarshall(raw) as { eventIds?: string[]; relayedUpTo?: string };
      for (const id of receipt.eventIds ?? []) relayed.eventIds.add(id);
      const upTo = receipt.relayedUpTo;
      if (upTo && (relayed.relayedUpTo === undefined || upTo > relayed.relayedUpTo))
        relayed.relayedUpTo = upTo;
    }
  }
  return relayed;
}
