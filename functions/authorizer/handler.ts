import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { getOrganisation } from '../../shared/adapters/organisation-store.js';
import { findTokenByPrefix, recordTokenUse } from '../../shared/adapters/token-store.js';
import { tokenTag } from '../../shared/config.js';
import { allowWholeApi } from '../../shared/domain/authorizer-policy.js';
import { parseBearer, tokenMatchesHash } from '../../shared/domain/token.js';
import { logger, MetricUnit, publishMetrics } from '../../shared/observability.js';
import { METRIC } from '../../shared/topology/metrics.js';

/**
 * API Gateway answers 401 only when a TOKEN authorizer throws exactly `Unauthorized`; a Deny policy
 * would be a 403. So every token that is not valid and live throws it.
 */
const unauthorized = () => {
  publishMetrics((metrics) => metrics.addMetric(METRIC.authorizerDenials, MetricUnit.Count, 1));
  return new Error('Unauthorized');
};

export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const bearer = parseBearer(event.authorizationToken, tokenTag());
  if (!bearer) throw unauthorized();
  const record = await findTokenByPrefix(bearer.prefix);
  if (!record || !tokenMatchesHash(bearer.token, record.hash) || record.revokedAt) {
    logger.info('Token refused', { tokenPrefix: bearer.prefix, known: record !== undefined });
    throw unauthorized();
  }
  // Runs once per cache period per token, so lastUsedAt is accurate to the authorizer cache time.
  const [organisation] = await Promise.all([
    getOrganisation(record.organisationId),
    recordTokenUse(record.prefix),
  ]);
  if (!organisation) throw unauthorized();
  return allowWholeApi(event.methodArn, {
    organisationId: organisation.id,
    tokenId: record.id,
    scopes: record.scopes.join(' '),
    rateLimitPerMinute: organisation.rateLimitPerMinute,
  });
}
