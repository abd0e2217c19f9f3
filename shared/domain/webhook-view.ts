import type { WebhookEndpoint } from './webhook-endpoint.js';
import { WEBHOOK_EVENT_NAMES } from './webhook-events.js';

/** An endpoint as the API shows it: never its secret; `events` spelled out even when it takes all. */
export function webhookEndpointView(endpoint: WebhookEndpoint) {
  const { organisationId: _org, ...view } = endpoint;
  return { ...view, events: endpoint.events.length > 0 ? endpoint.events : WEBHOOK_EVENT_NAMES };
}
