import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ENDPOINT_PACE, type EndpointPace, UNSTRUCK } from '../domain/endpoint-pace.js';
import { dynamodb, isConditionalCheckFailure, tableName } from './dynamodb.js';
import { keys } from './keys.js';
import { DELIVERY_TIMEOUT_MS } from './webhook-sender.js';

/**
 * A slot outlives the longest attempt (the sender's deadline) with a margin; one whose worker died
 * mid-attempt is free again after this.
 */
const SLOT_HELD_MS = DELIVERY_TIMEOUT_MS + 5000;
/** Kept a week after the last change; nothing depends on the TTL deletion. */
const KEEP_SECONDS = 7 * 24 * 3600;

const slotName = (slot: number) => `slot${slot}`;

export async function readEndpointPace(organisationId: string, endpointId: string): Promise<EndpointPace> {
  const { Item } = await dynamodb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(keys.endpointPace(organisationId, endpointId)),
    }),
  );
  return paceOf(Item ? unmarshall(Item) : undefined);
}

/** The pace a stored pace item holds (none stored: never struck). */
export function paceOf(item: Record<string, unknown> | undefined): EndpointPace {
  if (!item) return UNSTRUCK;
  return { strikes: Number(item.strikes) || 0, lastStrikeAt: Number(item.lastStrikeAt) || 0 };
}

/**
 * Takes one of the limited endpoint's in-flight slots (each an attribute holding when it frees
 * itself), or returns undefined when all are held. A conditional write per slot tried: atomic
 * across every delivery worker.
 */
export async function takeInFlightSlot(
  organisationId: string,
  endpointId: string,
  now = Date.now(),
): Promise<number | undefined> {
  for (let slot = 0; slot < ENDPOINT_PACE.inFlightWhileLimited; slot++) {
    try {
      await dynamodb().send(
        new UpdateItemCommand({
          TableName: tableName(),
          Key: marshall(keys.endpointPace(organisationId, endpointId)),
          UpdateExpression: 'SET #slot = :until, expiresAt = :expires',
          ConditionExpression: 'attribute_not_exists(#slot) OR #slot < :now',
          ExpressionAttributeNames: { '#slot': slotName(slot) },
          ExpressionAttributeValues: marshall({
            ':until': now + SLOT_HELD_MS,
            ':now': now,
            ':expires': Math.floor(now / 1000) + KEEP_SECONDS,
          }),
        }),
      );
      return slot;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }
  return undefined;
}

/**
 * After an attempt: counts a strike (or clears the strikes after a fast success) and frees the slot
 * the attempt held, in one write; no write at all for a success of an endpoint without strikes.
 */
export async function settleEndpointPace(
  organisationId: string,
  endpointId: string,
  settle: { strike: boolean; hadStrikes: boolean; slot: number | undefined },
  now = Date.now(),
): Promise<void> {
  const sets: string[] = [];
  const values: Record<string, number> = {};
  if (settle.strike) {
    sets.push('strikes = if_not_exists(strikes, :zero) + :one', 'lastStrikeAt = :now');
    Object.assign(values, { ':zero': 0, ':one': 1, ':now': now });
  } else if (settle.hadStrikes) {
    sets.push('strikes = :zero');
    values[':zero'] = 0;
  }
  if (sets.length === 0 && settle.slot === undefined) return;
  sets.push('expiresAt = :expires');
  values[':expires'] = Math.floor(now / 1000) + KEEP_SECONDS;
  const remove = settle.slot === undefined ? '' : ` REMOVE ${slotName(settle.slot)}`;
  await dynamodb().send(
    new UpdateItemCommand({
      TableName: tableName(),
      Key: marshall(keys.endpointPace(organisationId, endpointId)),
      UpdateExpression: `SET ${sets.join(', ')}${remove}`,
      ExpressionAttributeValues: marshall(values),
    }),
  );
}
