import { randomUUID } from 'node:crypto';
import { PutItemCommand, paginateQuery } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { logger } from '../observability.js';
import { dynamodb, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import { OUTBOX_RETENTION_SECONDS } from './outbox.js';

/**
 * Records that every delivery of these events is on the bus: one item per relayed batch (up to 500
 * event ids, about 20 KB), where a mark per outbox item would cost a write per event. A receipt
 * that fails to be written only means the sweep puts the events on the stream again later, with the
 * same delivery ids: a duplicate the subscriber drops, never a loss; so it is logged, not thrown.
 */
export async function writeRelayReceipt(eventIds: readonly string[], at = new Date()): Promise<void> {
  if (eventIds.length === 0) return;
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

/** The ids of the events named by a receipt written at or after `since`. */
export async function eventIdsRelayedSince(since: Date): Promise<Set<string>> {
  const relayed = new Set<string>();
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
      const { eventIds } = unmarshall(raw) as { eventIds?: string[] };
      for (const id of eventIds ?? []) relayed.add(id);
    }
  }
  return relayed;
}
