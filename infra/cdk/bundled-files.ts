import { SWAGGER_UI_FILES } from '../../functions/docs/console.js';
import type { FunctionName } from '../../shared/topology/routes.js';
import type { BundledFile } from './constructs/service-function.js';

/**
 * Files a function reads at run time besides its code. The docs function serves Swagger UI's own
 * files; they are copied into its bundle (as `swagger-ui/<name>`, where the handler looks first)
 * instead of being imported, so the 1.7 MB script is neither parsed at cold start nor counted in
 * the function's code size.
 */
const NONE: readonly BundledFile[] = [];

export const BUNDLED_FILES: Readonly<Record<FunctionName, readonly BundledFile[]>> = {
  docs: Object.keys(SWAGGER_UI_FILES).map((name) => ({
    from: `node_modules/swagger-ui-dist/${name}`,
    to: `swagger-ui/${name}`,
  })),
  authorizer: NONE,
  ping: NONE,
  'incident-declare': NONE,
  'incident-move': NONE,
  'incident-get': NONE,
  'incidents-list': NONE,
  'incident-amend': NONE,
  'incident-authority-update': NONE,
  'incident-data-subject-communication': NONE,
  'incident-report': NONE,
  'breach-register': NONE,
  'webhook-create': NONE,
  'webhook-delete': NONE,
  'webhooks-list': NONE,
  'webhook-deliveries-list': NONE,
  'webhook-get': NONE,
  'webhook-update': NONE,
  'webhook-test': NONE,
  'webhook-rotate-secret': NONE,
  'webhook-redeliver': NONE,
  'webhook-recover': NONE,
  'member-statistics': NONE,
  'record-member': NONE,
  'upcoming-events': NONE,
  'publish-event': NONE,
  'impact-report': NONE,
  'publish-impact-report': NONE,
  'contribution-record': NONE,
  'contribution-get': NONE,
  'timebank-payout-settle': NONE,
  'timebank-payout-get': NONE,
  'sanctuary-file-register': NONE,
  'sanctuary-file-get': NONE,
  'outbox-relay': NONE,
  'deliver-webhook': NONE,
  timers: NONE,
};
