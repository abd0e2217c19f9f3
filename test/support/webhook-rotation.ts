import { createHmac } from 'node:crypto';

/**
 * The headers a delivery carries while its endpoint's secret is being rotated (INTERFACE.md, "Webhook
 * endpoints, managed"): `x-service-signature` with the new secret, `x-service-signature-previous` with the
 * old one, and `webhook-signature` carrying both (`v1,<new> v1,<old>`). Built here from a delivery signed
 * with the old secret, independently of the service's and the SDK's signing code, for the verifier's unit
 * test; test/e2e/sdk-webhooks.test.ts verifies real deliveries after a real `POST /webhooks/{id}/rotate-secret`.
 */
export function rotationOverlapHeaders(
  delivery: { headers: Record<string, string>; rawBody: string },
  newSecret: string,
): Record<string, string> {
  const { headers, rawBody } = delivery;
  const id = headers['webhook-id'] ?? '';
  const timestamp = headers['webhook-timestamp'] ?? '';
  const key = Buffer.from(newSecret.replace(/^whsec_/, ''), 'base64');
  const standard = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64');
  return {
    ...headers,
    'x-service-signature': `sha256=${createHmac('sha256', newSecret).update(rawBody).digest('hex')}`,
    'x-service-signature-previous': headers['x-service-signature'] ?? '',
    'webhook-signature': `v1,${standard} ${headers['webhook-signature'] ?? ''}`,
  };
}
