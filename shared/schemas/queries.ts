import type * as z from 'zod/mini';
import type { RouteKey } from '../topology/routes.js';
import { breachRegisterQuery } from './breach-report.js';
import { noQuery } from './common.js';
import { eventsQuery } from './events.js';
import { pageQuery } from './pagination.js';

/**
 * The query parameters each route takes, the one declaration read by the functions (a parameter
 * not declared here is refused with 400 on every route, `HEAD` included) and by the OpenAPI
 * document. A route without parameters refuses any.
 */
export const ROUTE_QUERIES = {
  'GET /ping': noQuery,
  'GET /members': noQuery,
  'POST /members': noQuery,
  'GET /events': eventsQuery,
  'POST /events': noQuery,
  'GET /impact': noQuery,
  'POST /impact': noQuery,
  'GET /openapi.json': noQuery,
  'GET /docs': noQuery,
  'GET /docs/{asset+}': noQuery,
  'GET /incidents': pageQuery,
  'POST /incidents': noQuery,
  'GET /incidents/{id}': noQuery,
  'POST /incidents/{id}/contain': noQuery,
  'POST /incidents/{id}/notify': noQuery,
  'POST /incidents/{id}/close': noQuery,
  'PATCH /incidents/{id}': noQuery,
  'POST /incidents/{id}/authority-updates': noQuery,
  'POST /incidents/{id}/data-subject-communication': noQuery,
  'GET /incidents/{id}/report': noQuery,
  'GET /breach-register': breachRegisterQuery,
  'GET /webhooks': pageQuery,
  'POST /webhooks': noQuery,
  'DELETE /webhooks/{id}': noQuery,
  'GET /webhooks/{id}/deliveries': pageQuery,
  'GET /webhooks/{id}': noQuery,
  'PATCH /webhooks/{id}': noQuery,
  'POST /webhooks/{id}/test': noQuery,
  'POST /webhooks/{id}/rotate-secret': noQuery,
  'POST /webhooks/{id}/deliveries/{deliveryId}/redeliver': noQuery,
  'POST /webhooks/{id}/recover': noQuery,
  'GET /portal': noQuery,
  'POST /contributions': noQuery,
  'GET /contributions/{id}': noQuery,
  'POST /timebank/payouts': noQuery,
  'GET /timebank/payouts/{id}': noQuery,
  'POST /sanctuary/files': noQuery,
  'GET /sanctuary/files/{id}': noQuery,
} as const satisfies Record<RouteKey, z.ZodMiniType<Record<string, unknown>>>;
