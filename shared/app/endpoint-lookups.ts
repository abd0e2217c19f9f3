import { readDeliveryTarget } from '../adapters/delivery-target.js';
import { readEndpointPace } from '../adapters/endpoint-pace-store.js';
import { getWebhookEndpointWithSecret } from '../adapters/webhook-endpoint-store.js';
import type { EndpointPace } from '../domain/endpoint-pace.js';

export type EndpointWithSecret = Awaited<ReturnType<typeof getWebhookEndpointWithSecret>>;
export type EndpointLookup = (organisationId: string, endpointId: string) => Promise<EndpointWithSecret>;
export type PaceLookup = (organisationId: string, endpointId: string) => Promise<EndpointPace>;

export interface DeliveryLookups {
  endpoint: EndpointLookup;
  pace: PaceLookup;
}

/** Reads per call: what one delivery alone (a test, a redrive) uses. */
export const DIRECT_LOOKUPS: DeliveryLookups = {
  endpoint: getWebhookEndpointWithSecret,
  pace: readEndpointPace,
};

function oncePerKey<T>(read: (organisationId: string, endpointId: string) => Promise<T>) {
  const done = new Map<string, Promise<T>>();
  return (organisationId: string, endpointId: string): Promise<T> => {
    const key = `${organisationId}/${endpointId}`;
    let found = done.get(key);
    if (!found) {
      found = read(organisationId, endpointId);
      // A failed read is not remembered: the next record of the batch tries again.
      found.catch(() => done.delete(key));
      done.set(key, found);
    }
    return found;
  };
}

/**
 * Reads each endpoint (decrypting its secret) and its pace once per batch of deliveries, together
 * in one BatchGetItem: a batch of ten to one endpoint costs one read and one decryption instead of
 * twenty and ten. Scoped to one batch (one invocation), so a change made meanwhile (disabled,
 * deleted, limited) is seen by the next batch; the in-flight slots themselves are taken with
 * conditional writes, never from this.
 */
export function lookupsForOneBatch(): DeliveryLookups {
  const target = oncePerKey((organisationId, endpointId) => readDeliveryTarget(organisationId, endpointId));
  return {
    endpoint: async (organisationId, endpointId) => (await target(organisationId, endpointId)).endpoint,
    pace: async (organisationId, endpointId) => (await target(organisationId, endpointId)).pace,
  };
}
