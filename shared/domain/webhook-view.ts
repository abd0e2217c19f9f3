import type { WebhookEndpoint } from './webhook-endpoint.js';
import { WEBHOOK_EVENT_NAMES } from './webhook-events.js';

/** An endpoint as the API shows it: never its secret; `events` spelled out even when it takes all. */
export function webhookEndpointView(endpoint: WebhookEndpoint, now = new Date()) {
  const { organisationId: _org, previousSecretExpiresAt, ...view } = endpoint;
  const overlapping = previousSecretExpiresAt !== null && Date.parse(previousSecretExpiresAt) > now.getTime();
  return {
    ...view,
    status: endpoint.disabledAt === null ? ('enabled' as const) : ('disabled' as const),
    events: endpoint.events.length > 0 ? endpoint.events : WEBHOOK_EVENT_NAMES,
    previousSecretExpiresAt: overlapping ? previousSecretExpiresAt : null,
  };
}
