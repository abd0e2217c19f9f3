import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one logger. Structured JSON; level from `POWERTOOLS_LOG_LEVEL`. Never log an Authorization
 * header, a token, a signing secret or a signature: log ids (token id, organisation id) instead.
 */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'membership-incident-service',
});
