import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './webhook-events.js';

/** Standard Webhooks' default replay window. */
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way (default 300). */
  toleranceSeconds?: number;
  /** Now, in ms since the epoch (default `Date.now()`). */
  now?: number;
  /**
   * Refuse a delivery without the Standard Webhooks headers (default false). `x-service-signature`
   * alone carries no timestamp, so only this stops a replay whose timestamp headers were stripped.
   */
  requireTimestamp?: boolean;
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The delivery is not a genuine, fresh one from the service: do not act on it (answer 400 or 401). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(', ') : value;
}

const bytesOf = (body: string | Uint8Array) => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

/** Compares in constant time for equal lengths (a length says nothing about a MAC's value). */
function sameBytes(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The Standard Webhooks key: the base64 after `whsec_` (the whole secret if it has no prefix). */
const standardKey = (secret: string) =>
  Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

function verifyStandard(
  secrets: string[],
  body: Uint8Array,
  id: string,
  timestamp: string,
  signatures: string,
) {
  const given = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  return secrets.some((secret) => {
    const expected = createHmac('sha256', standardKey(secret))
      .update(`${id}.${timestamp}.`)
      .update(body)
      .digest();
    return given.some((signature) => sameBytes(expected, signature));
  });
}

function verifyServiceSignature(secrets: string[], body: Uint8Array, signatures: string[]) {
  const given = signatures
    .filter((signature) => /^sha256=[0-9a-f]{64}$/.test(signature))
    .map((signature) => Buffer.from(signature.slice(7), 'hex'));
  return secrets.some((secret) => {
    const expected = createHmac('sha256', secret).update(body).digest();
    return given.some((signature) => sameBytes(expected, signature));
  });
}

function parseEvent(body: Uint8Array): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('The signed body is not JSON');
  }
  const event = parsed as Partial<WebhookEvent> | null;
  if (!event || typeof event !== 'object' || typeof event.event !== 'string') {
    throw new WebhookVerificationError('The signed body is not a webhook event (no "event" name)');
  }
  return event as WebhookEvent;
}

/**
 * Checks that `rawBody` (the exact bytes received, before any JSON parsing) was signed by the service
 * with `secret` (or one of several, while the subscriber switches secrets) and returns the event. With
 * the Standard Webhooks headers, their signature and timestamp decide (several `v1,` signatures are
 * sent during a rotation); otherwise `x-service-signature` (or `x-service-signature-previous`).
 * Throws a `WebhookVerificationError` saying what is wrong.
 */
export function verifyWebhook(
  secret: string | readonly string[],
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  options: VerifyOptions = {},
): WebhookEvent {
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => s.length > 0);
  if (secrets.length === 0) throw new WebhookVerificationError('No webhook secret to verify with');
  const body = bytesOf(rawBody);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const standardSignature = header(headers, 'webhook-signature');

  if (id !== undefined || timestamp !== undefined || standardSignature !== undefined) {
    if (!id || !timestamp || !standardSignature) {
      throw new WebhookVerificationError(
        'Incomplete Standard Webhooks headers (webhook-id, -timestamp, -signature)',
      );
    }
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const ageSeconds = (options.now ?? Date.now()) / 1000 - Number(timestamp);
    if (Math.abs(ageSeconds) > tolerance) {
      throw new WebhookVerificationError(
        `webhook-timestamp is ${Math.round(ageSeconds)} s from now, outside the ${tolerance} s window (a replay?)`,
      );
    }
    if (!verifyStandard(secrets, body, id, timestamp, standardSignature)) {
      throw new WebhookVerificationError('No webhook-signature matches the body with this secret');
    }
    return parseEvent(body);
  }

  if (options.requireTimestamp) {
    throw new WebhookVerificationError('No Standard Webhooks headers: the delivery carries no timestamp');
  }
  const signatures = ['x-service-signature', 'x-service-signature-previous']
    .map((name) => header(headers, name))
    .filter((value): value is string => value !== undefined);
  if (signatures.length === 0) throw new WebhookVerificationError('The delivery carries no signature header');
  if (!verifyServiceSignature(secrets, body, signatures)) {
    throw new WebhookVerificationError('No x-service-signature matches the body with this secret');
  }
  return parseEvent(body);
}
