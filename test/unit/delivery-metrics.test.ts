import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import type { SendResult } from '../../shared/adapters/webhook-sender.js';
import { deliverWebhook } from '../../shared/app/deliver-webhook.js';
import { MAX_DELIVERY_ATTEMPTS } from '../../shared/domain/retry-schedule.js';
import type { DeliveryMessage } from '../../shared/domain/webhook-events.js';
import {
  METRIC,
  METRICS_NAMESPACE,
  OUTCOME_DIMENSION,
  SERVICE_NAME,
  STAGE_DIMENSION,
} from '../../shared/topology/metrics.js';
import { emfDocumentsOf } from '../support/emf.js';

/**
 * The delivery metrics are EMF lines on stdout (CloudWatch Logs makes metrics of them), so the test
 * reads stdout. The adapters (DynamoDB, KMS, the HTTP sender, the endpoint's pace) are replaced: only the use case's
 * decision and what it emits are under test here.
 */
const adapters = vi.hoisted(() => ({
  send: vi.fn<() => Promise<SendResult>>(),
  endpointFound: { value: true },
}));

vi.mock('../../shared/adapters/webhook-sender.js', () => ({ sendWebhook: adapters.send }));
vi.mock('../../shared/adapters/delivery-log.js', () => ({ recordAttempt: async () => undefined }));
vi.mock('../../shared/adapters/delivery-records.js', () => ({ attemptsMadeSoFar: async () => 0 }));
// An endpoint without strikes, and the pending notes written nowhere.
vi.mock('../../shared/adapters/endpoint-pace-store.js', () => ({
  readEndpointPace: async () => ({ strikes: 0, lastStrikeAt: 0 }),
  takeInFlightSlot: async () => 0,
  settleEndpointPace: async () => undefined,
}));
vi.mock('../../shared/adapters/pending-deliveries.js', () => ({
  notePendingDelivery: async () => undefined,
  clearPendingDelivery: async () => undefined,
}));
vi.mock('../../shared/adapters/webhook-endpoint-store.js', () => ({
  disableWebhookEndpoint: async () => undefined,
  noteEndpointFailure: async () => new Date().toISOString(),
  clearEndpointFailure: async () => undefined,
  getWebhookEndpointWithSecret: async () =>
    adapters.endpointFound.value
      ? {
          endpoint: {
            id: 'endpoint-1',
            organisationId: 'org-1',
            url: 'https://example.org/hooks',
            events: [],
            description: null,
            createdAt: '2026-11-01T00:00:00.000Z',
            disabledAt: null,
            disabledReason: null,
            failingSince: null,
            previousSecretExpiresAt: null,
          },
          secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        }
      : undefined,
}));

const message: DeliveryMessage = {
  eventId: 'event-1',
  event: 'incident.declared',
  organisationId: 'org-1',
  occurredAt: '2026-11-22T09:00:00.000Z',
  data: { id: 'incident-1' },
  deliveryId: 'delivery-1',
  endpointId: 'endpoint-1',
};
const DELAYS = [30, 150, 750, 3600, 18000];

let stdout: MockInstance<typeof process.stdout.write>;

/** The EMF documents written to stdout since the test began. */
const emfDocuments = () => emfDocumentsOf(stdout);

beforeEach(() => {
  // On whatever the environment says: the local stack turns metrics off with this variable.
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  adapters.endpointFound.value = true;
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});

afterEach(() => {
  stdout.mockRestore();
  vi.unstubAllEnvs();
});

describe('each delivery attempt emits one EMF document', () => {
  it('counting the attempt in total and by outcome, with its latency', async () => {
    adapters.send.mockResolvedValueOnce({ ok: true, statusCode: 204, latencyMs: 42, responseExcerpt: '' });
    expect((await deliverWebhook(message, 1, DELAYS)).outcome).toBe('succeeded');

    expect(emfDocuments()).toEqual([
      {
        _aws: {
          Timestamp: expect.any(Number),
          CloudWatchMetrics: [
            {
              Namespace: METRICS_NAMESPACE,
              Dimensions: [
                ['service', STAGE_DIMENSION, OUTCOME_DIMENSION],
                ['service', STAGE_DIMENSION],
              ],
              Metrics: [
                { Name: METRIC.deliveryAttempts, Unit: 'Count' },
                { Name: METRIC.deliveryLatency, Unit: 'Milliseconds' },
              ],
            },
          ],
        },
        service: SERVICE_NAME,
        [STAGE_DIMENSION]: 'local',
        [OUTCOME_DIMENSION]: 'succeeded',
        [METRIC.deliveryAttempts]: 1,
        [METRIC.deliveryLatency]: 42,
      },
    ]);
  });

  it.each([
    { attempt: 1, outcome: 'retry_scheduled' },
    { attempt: MAX_DELIVERY_ATTEMPTS, outcome: 'failed' },
  ])(
    'a 503 on attempt $attempt counts as $outcome, which the failure-rate alarm counts',
    async ({ attempt, outcome }) => {
      adapters.send.mockResolvedValueOnce({ ok: false, statusCode: 503, latencyMs: 9, responseExcerpt: '' });
      expect((await deliverWebhook(message, attempt, DELAYS)).outcome).toBe(outcome);
      expect(emfDocuments()).toEqual([
        expect.objectContaining({ [OUTCOME_DIMENSION]: outcome, [METRIC.deliveryAttempts]: 1 }),
      ]);
    },
  );

  it('an attempt that sent nothing (endpoint deleted) is counted as skipped, without a latency', async () => {
    adapters.endpointFound.value = false;
    expect((await deliverWebhook(message, 1, DELAYS)).outcome).toBe('skipped');
    const [document] = emfDocuments();
    expect(document).toMatchObject({ [OUTCOME_DIMENSION]: 'skipped', [METRIC.deliveryAttempts]: 1 });
    expect(document).not.toHaveProperty(METRIC.deliveryLatency);
  });

  it('nothing when POWERTOOLS_METRICS_DISABLED is true (the local stack)', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    adapters.send.mockResolvedValueOnce({ ok: true, statusCode: 200, latencyMs: 5, responseExcerpt: '' });
    await deliverWebhook(message, 1, DELAYS);
    expect(emfDocuments()).toEqual([]);
  });
});
