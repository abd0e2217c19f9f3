import { marshall } from '@aws-sdk/util-dynamodb';
import type { EndpointPace } from '../domain/endpoint-pace.js';
import { getItems } from './batch-items.js';
import { paceOf } from './endpoint-pace-store.js';
import { keys } from './keys.js';
import { type EndpointWithSecret, endpointWithSecret } from './webhook-endpoint-store.js';

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
  const items = await getItems([marshall(endpointKey), marshall(paceKey)]);
  const find = (key: { pk: string; sk: string }) => items.find((i) => i.pk === key.pk && i.sk === key.sk);
  const endpointItem = find(endpointKey);
  return {
    endpoint: endpointItem ? await endpointWithSecret(endpointItem, now) : undefined,
    pace: paceOf(find(paceKey)),
  };
}
