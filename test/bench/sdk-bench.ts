import { createHmac } from 'node:crypto';
import { sdkBundleBytes } from '../../sdk/scripts/bundle-size.js';
import { verifyWebhook } from '../../sdk/src/index.js';
import { newSigningSecret } from '../../shared/domain/webhook-endpoint.js';
import { webhookHeaders } from '../../shared/domain/webhook-signature.js';
import { SDK_TARGETS, SDK_VERIFY_RUNS } from './settings.js';

export interface SdkReport {
  bundleBytes: number;
  /** Mean ms per call of each variant, measured in turn on the same body. */
  verifyMs: { standard: number; serviceSignature: number; bareHmac: number };
  bodyBytes: number;
}

function meanMs(run: () => unknown): number {
  for (let i = 0; i < SDK_VERIFY_RUNS; i++) run();
  const started = performance.now();
  for (let i = 0; i < SDK_VERIFY_RUNS; i++) run();
  return (performance.now() - started) / SDK_VERIFY_RUNS;
}

/**
 * The SDK's size as an integrator ships it, and `verifyWebhook` on a delivery as the service signs it
 * (an incident payload) beside a bare `crypto.createHmac` of the same body: the floor of any verifier.
 */
export async function benchSdk(): Promise<SdkReport> {
  const { bytes } = await sdkBundleBytes();
  const secret = newSigningSecret();
  const body = JSON.stringify({
    event: 'incident.declared',
    organisationId: '5f0c7a2e-8d1b-4c3e-9a6f-2b7d4e1c0a93',
    incident: {
      id: 'b9e0f5a4-6c1d-4f0e-8b7a-3d2c1e0f9a88',
      severity: 'critical',
      category: 'confidentiality',
      detectedAt: '2026-11-20T06:00:00.000Z',
      status: 'declared',
      declaredAt: '2026-11-20T07:15:00.000Z',
    },
    attempt: 1,
  });
  const headers = webhookHeaders({
    secret,
    deliveryId: '7c0f3f7e-2b7d-4c55-9f1e-0d6f3a1b2c3d',
    event: 'incident.declared',
    body,
    timestampSeconds: Math.floor(Date.now() / 1000),
    serviceName: 'service',
  });
  const serviceOnly = { 'x-service-signature': headers['x-service-signature'] };
  return {
    bundleBytes: bytes,
    bodyBytes: Buffer.byteLength(body),
    verifyMs: {
      standard: meanMs(() => verifyWebhook(secret, body, headers)),
      serviceSignature: meanMs(() => verifyWebhook(secret, body, serviceOnly)),
      bareHmac: meanMs(() => createHmac('sha256', secret).update(body).digest('hex')),
    },
  };
}

export function sdkSection(report: SdkReport): string {
  const kib = report.bundleBytes / 1024;
  const verdict = (ms: number) => (ms < SDK_TARGETS.maxVerifyMs ? 'OK' : 'OVER');
  const { standard, serviceSignature, bareHmac } = report.verifyMs;
  const µs = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
  return [
    'SDK (sdk/): the client as an integrator bundles it (esbuild, minified ESM, openapi-fetch included, no types),',
    `and verifyWebhook on a ${report.bodyBytes}-byte incident delivery, mean of ${SDK_VERIFY_RUNS} calls after as many warm-ups.`,
    `  bundle: ${kib.toFixed(1)} KB (${report.bundleBytes} bytes), target < ${SDK_TARGETS.maxKiB} KB: ${kib < SDK_TARGETS.maxKiB ? 'OK' : 'OVER'}`,
    `  verify, Standard Webhooks headers (HMAC, timestamp, JSON parse): ${µs(standard)}, target < ${µs(SDK_TARGETS.maxVerifyMs)}: ${verdict(standard)}`,
    `  verify, x-service-signature only:                               ${µs(serviceSignature)}: ${verdict(serviceSignature)}`,
    `  bare crypto.createHmac(secret).update(body).digest('hex'):       ${µs(bareHmac)} (the floor)`,
  ].join('\n');
}
