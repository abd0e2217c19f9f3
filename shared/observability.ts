import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, SERVICE_NAME, STAGE_DIMENSION, STAGE_VARIABLE } from './topology/metrics.js';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME;

/**
 * The one logger. Structured JSON; level from `POWERTOOLS_LOG_LEVEL`. Never log an Authorization
 * header, a token, a signing secret or a signature: log ids (token id, organisation id) instead.
 */
export const logger = new Logger({ serviceName });

/**
 * Metrics are CloudWatch Embedded Metric Format lines on stdout, which CloudWatch Logs turns into
 * metrics: no PutMetricData call, and no permission, on the request path. Every metric carries the
 * service and the stage. `POWERTOOLS_METRICS_DISABLED=true` turns the lines off.
 */
const metricsOptions = {
  namespace: METRICS_NAMESPACE,
  serviceName,
  defaultDimensions: { [STAGE_DIMENSION]: process.env[STAGE_VARIABLE] || 'local' },
};

export type { Metrics };
export { MetricUnit };

/**
 * Records metrics and publishes them at once, as one EMF line from a buffer of their own: the
 * deliveries of a batch run side by side, and a shared buffer would mix one's dimensions into
 * another's. With `breakdown`, each metric is published both in total and by those dimensions.
 */
export function publishMetrics(record: (metrics: Metrics) => void, breakdown?: Record<string, string>): void {
  // What Powertools would do with them, without building a buffer per call first (the local
  // stack turns metrics off; the delivery worker publishes one set per attempt).
  if (process.env.POWERTOOLS_METRICS_DISABLED === 'true') return;
  const metrics = new Metrics(metricsOptions);
  if (breakdown) {
    metrics.addDimensions(breakdown);
    // An empty set is the total: the default dimensions (service and stage) alone.
    metrics.addDimensions({});
  }
  record(metrics);
  metrics.publishStoredMetrics();
}
