import { getWebhookEndpointWithSecret } from '../adapters/webhook-endpoint-store.js';

export type EndpointWithSecret = Awaited<ReturnType<typeof getWebhookEndpointWithSecret>>;
export type EndpointLookup = (organisationId: string, endpointId: string) => Promise<EndpointWithSecret>;

/**
 * Reads each endpoint (and decrypts its secret) once per batch of deliveries: a batch of ten to one
 * endpoint costs one GetItem and one decryption instead of ten. Scoped to one batch (one
 * invocation), so an endpoint disabled or deleted meanwhile is seen by the next batch.
 */
export function endpointLookupsForOneBatch(): EndpointLookup {
  const read = new Map<string, Promise<EndpointWithSecret>>();
  return (organisationId, endpointId) => {
    const key = `${organisationId}/${endpointId}`;
    let found = read.get(key);
    if (!found) {
      found = getWebhookEndpointWithSecret(organisationId, endpointId);
      // A failed read is not remembered: the next record of the batch tries again.
      found.catch(() => read.delete(key));
      read.set(key, found);
    }
    return found;
  };
}
