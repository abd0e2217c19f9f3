import { createHmac } from 'node:crypto';

/**
 * The two signatures every delivery carries, both over the exact bytes sent, with one
 * `whsec_<base64>` secret:
 * - `x-<service>-signature: sha256=<hex>`, GitHub's `X-Hub-Signature-256` scheme: the HMAC key is
 *   the whole secret string, so `@octokit/webhooks-methods` `verify(secret, body, sig)` accepts it;
 * - Standard Webhooks: the key is the base64-decoded part after `whsec_`, the signed content
 *   `${id}.${timestamp}.${body}`, so any Standard Webhooks library verifies it and rejects replays.
 */
const STANDARD_WEBHOOKS_PREFIX = 'whsec_';

type Payload = string | Uint8Array;

const bytesOf = (payload: Payload): Buffer =>
  typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);

/** `sha256=` + lowercase hex HMAC-SHA256 of the body, keyed with the secret string itself. */
export function signPayload(secret: string, body: Payload): string {
  return `sha256=${createHmac('sha256', secret).update(bytesOf(body)).digest('hex')}`;
}

/** `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`, keyed with the decoded secret. */
export function signStandardWebhook(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: Payload,
): string {
  const encodedKey = secret.startsWith(STANDARD_WEBHOOKS_PREFIX)
    ? secret.slice(STANDARD_WEBHOOKS_PREFIX.length)
    : secret;
  const signed = Buffer.concat([Buffer.from(`${id}.${timestampSeconds}.`, 'utf8'), bytesOf(body)]);
  return `v1,${createHmac('sha256', Buffer.from(encodedKey, 'base64')).update(signed).digest('base64')}`;
}

export interface DeliveryToSign {
  secret: string;
  deliveryId: string;
  event: string;
  /** The exact bytes that will be sent. */
  body: Payload;
  /** Epoch seconds of this attempt: a fresh timestamp on every attempt, as Standard Webhooks expects. */
  timestampSeconds: number;
  /** The literal in the header names: `x-<serviceName>-signature`. */
  serviceName: string;
  /**
   * The secret a rotation replaced, while its overlap lasts: the delivery is signed with both, so
   * a subscriber verifies with either while it switches.
   */
  previousSecret?: string;
}

/** Every header of one delivery attempt, names in lower case. */
export function webhookHeaders(delivery: DeliveryToSign): Record<string, string> {
  const { secret, deliveryId, event, body, timestampSeconds, serviceName, previousSecret } = delivery;
  const standard = signStandardWebhook(secret, deliveryId, timestampSeconds, body);
  return {
    'content-type': 'application/json',
    'user-agent': `${serviceName}-webhooks/1.0`,
    [`x-${serviceName}-event`]: event,
    [`x-${serviceName}-delivery`]: deliveryId,
    [`x-${serviceName}-signature`]: signPayload(secret, body),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestampSeconds),
    // Standard Webhooks lists several signatures space-separated; a verifier accepts any one.
    'webhook-signature':
      previousSecret === undefined
        ? standard
        : `${standard} ${signStandardWebhook(previousSecret, deliveryId, timestampSeconds, body)}`,
    ...(previousSecret === undefined
      ? {}
      : { [`x-${serviceName}-signature-previous`]: signPayload(previousSecret, body) }),
  };
}
