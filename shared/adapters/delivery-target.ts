import {
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  type KeysAndAttributes,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { EndpointPace } from '../domain/endpoint-pace.js';
import { dynamodb, tableName } from './dynamodb.js';
import { paceOf } from './endpoint-pace-store.js';
import { keys } from './keys.js';
import { type EndpointWithSecret, endpointWithSecret } from './webhook-endpoint-store.js';

/** Tries of the keys DynamoDB leaves unprocessed (throttling) before the read is reported failed. */
const BATCH_GET_TRIES = 4;

/** What a delivery needs of its endpoint: the endpoint with its secret (undefined: deleted), and its pace. */
export interface DeliveryTarget {
  endpoint: EndpointWithSecret | undefined;
  pace: EndpointPace;
}

/**
 * Reads an endpoint and its pace in one BatchGetItem (two GetItems before): a delivery batch reads
 * this once per endpoint. Strongly consistent, as the endpoint's own read is, so that a disable or
 * a rotation is seen by the next batch.
 */
export async function readDeliveryTarget(
  organisationId: string,
  endpointId: string,
  now = new Date(),
): Promise<DeliveryTarget> {
  const endpointKey = keys.webhookEndpoint(organisationId, endpointId);
  const paceKey = keys.endpointPace(organisationId, endpointId);
  let request: KeysAndAttributes | undefined = {
    Keys: [marshall(endpointKey), marshall(paceKey)],
    ConsistentRead: true,
  };
  const items: Record<string, unknown>[] = [];
  for (let tries = 1; request?.Keys?.length; tries++) {
    if (tries > BATCH_GET_TRIES) throw new Error('An endpoint and its pace stayed unread');
    if (tries > 1) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** tries));
    const output: BatchGetItemCommandOutput = await dynamodb().send(
      new BatchGetItemCommand({ RequestItems: { [tableName()]: request } }),
    );
    items.push(...(output.Responses?.[tableName()] ?? []).map((raw) => unmarshall(raw)));
    request = output.UnprocessedKeys?.[tableName()];
  }
  const find = (key: { pk: string; sk: string }) => items.find((i) => i.pk === key.pk && i.sk === key.sk);
  const endpointItem = find(endpointKey);
  return {
    endpoint: endpointItem ? await endpointWithSecret(endpointItem, now) : undefined,
    pace: paceOf(find(paceKey)),
  };
}
