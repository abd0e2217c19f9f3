import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/src/index.js';
import { newSigningSecret } from '../../shared/domain/webhook-endpoint.js';
import { rotationOverlapHeaders } from '../support/webhook-rotation.js';

/**
 * The verifier against deliveries signed here by independent code (the standardwebhooks library and a
 * bare HMAC), not by the service's signer: real deliveries are in test/e2e/sdk-webhooks.test.ts.
 */
const secret = newSigningSecret();
const rawBody = JSON.stringify({
  event: 'incident.declared',
  organisationId: '5f0c7a2e-8d1b-4c3e-9a6f-2b7d4e1c0a93',
  incident: {
    id: 'b1',
    severity: 'high',
    category: 'confidentiality',
    detectedAt: '2026-11-22T10:00:00.000Z',
  },
  note: 'Zürich ✓ 🚨',
  attempt: 1,
});
const deliveryId = '0d9c1c52-7b1e-4f7a-9f7e-0a4c5b6d7e8f';

function serviceSignature(key: string, body: string) {
  return `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
}

function signed(body = rawBody, at = new Date(), key = secret): Record<string, string> {
  return {
    'x-service-signature': serviceSignature(key, body),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(deliveryId, at, body),
  };
}

const onlyServiceSignature = (headers: Record<string, string>) => ({
  'x-service-signature': headers['x-service-signature'] ?? '',
});
const onlyStandard = ({ 'x-service-signature': _, ...standard }: Record<string, string>) => standard;

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as Error).message;
  }
  throw new Error('the delivery was accepted');
}

describe('verifyWebhook', () => {
  it('returns the parsed event for either scheme alone and for both', () => {
    const headers = signed();
    for (const given of [headers, onlyStandard(headers), onlyServiceSignature(headers)]) {
      expect(verifyWebhook(secret, rawBody, given)).toEqual(JSON.parse(rawBody));
    }
  });

  it('takes the body as bytes and the headers as a Headers object or with any case', () => {
    const headers = signed();
    expect(verifyWebhook(secret, Buffer.from(rawBody), new Headers(headers)).event).toBe('incident.declared');
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(secret, rawBody, upper).event).toBe('incident.declared');
  });

  it('refuses a tampered body, under each scheme', () => {
    const headers = signed();
    const tampered = rawBody.replace('"high"', '"low"');
    const reserialised = JSON.stringify(JSON.parse(rawBody), null, 2);
    for (const body of [tampered, reserialised, `${rawBody} `]) {
      expect(refusal(() => verifyWebhook(secret, body, onlyStandard(headers)))).toMatch(/webhook-signature/);
      expect(refusal(() => verifyWebhook(secret, body, onlyServiceSignature(headers)))).toMatch(
        /x-service-signature/,
      );
    }
  });

  it('refuses the wrong secret, an empty one, and a signature made for another delivery id', () => {
    const headers = signed();
    expect(refusal(() => verifyWebhook(newSigningSecret(), rawBody, headers))).toMatch(/matches/);
    expect(refusal(() => verifyWebhook(newSigningSecret(), rawBody, onlyServiceSignature(headers)))).toMatch(
      /matches/,
    );
    expect(refusal(() => verifyWebhook('', rawBody, headers))).toMatch(/No webhook secret/);
    expect(refusal(() => verifyWebhook(secret, rawBody, { ...headers, 'webhook-id': 'other' }))).toMatch(
      /matches/,
    );
  });

  it('refuses a timestamp outside the 5-minute window either way, and honours a given window', () => {
    const now = Date.now();
    const stale = signed(rawBody, new Date(now - 301_000));
    const future = signed(rawBody, new Date(now + 301_000));
    expect(refusal(() => verifyWebhook(secret, rawBody, stale, { now }))).toMatch(/outside the 300 s window/);
    expect(refusal(() => verifyWebhook(secret, rawBody, future, { now }))).toMatch(
      /outside the 300 s window/,
    );
    expect(verifyWebhook(secret, rawBody, signed(rawBody, new Date(now - 299_000)), { now }).attempt).toBe(1);
    expect(verifyWebhook(secret, rawBody, stale, { now, toleranceSeconds: 600 }).attempt).toBe(1);
    // A replay keeps its old timestamp: re-signing is the only way to move it, and that needs the secret.
    const moved = { ...stale, 'webhook-timestamp': String(Math.floor(now / 1000)) };
    expect(refusal(() => verifyWebhook(secret, rawBody, moved, { now }))).toMatch(/matches/);
  });

  it('does not fall back to the timestamp-less signature when a Standard Webhooks header is wrong or partial', () => {
    const headers = signed(rawBody, new Date(Date.now() - 3600_000));
    expect(refusal(() => verifyWebhook(secret, rawBody, headers))).toMatch(/outside/);
    const { 'webhook-id': _, ...partial } = signed();
    expect(refusal(() => verifyWebhook(secret, rawBody, partial))).toMatch(/Incomplete/);
    expect(
      refusal(() => verifyWebhook(secret, rawBody, { ...signed(), 'webhook-timestamp': 'soon' })),
    ).toMatch(/Unix seconds/);
  });

  it('refuses a delivery without a timestamp when asked to, and one without any signature', () => {
    const headers = onlyServiceSignature(signed());
    expect(refusal(() => verifyWebhook(secret, rawBody, headers, { requireTimestamp: true }))).toMatch(
      /no timestamp/,
    );
    expect(refusal(() => verifyWebhook(secret, rawBody, {}))).toMatch(/no signature/);
  });

  it('refuses an uppercase-hex or unprefixed x-service-signature (the scheme is exact)', () => {
    const hex = serviceSignature(secret, rawBody).slice(7);
    for (const signature of [`sha256=${hex.toUpperCase()}`, hex]) {
      expect(refusal(() => verifyWebhook(secret, rawBody, { 'x-service-signature': signature }))).toMatch(
        /matches/,
      );
    }
  });

  it('refuses a genuine signature over a body that is not a webhook event', () => {
    for (const body of ['not json', '[1,2]', '{"attempt":1}']) {
      expect(refusal(() => verifyWebhook(secret, body, signed(body)))).toMatch(/not (JSON|a webhook event)/);
    }
  });

  describe('during a secret rotation (hand-built overlap headers)', () => {
    const newSecret = newSigningSecret();
    const overlap = rotationOverlapHeaders({ headers: signed(), rawBody }, newSecret);

    it('accepts the old secret and the new one, under each scheme', () => {
      expect(overlap['webhook-signature']?.split(' ')).toHaveLength(2);
      for (const key of [secret, newSecret]) {
        expect(verifyWebhook(key, rawBody, overlap).event).toBe('incident.declared');
        expect(verifyWebhook(key, rawBody, onlyStandard(overlap)).event).toBe('incident.declared');
        const serviceOnly = {
          'x-service-signature': overlap['x-service-signature'] ?? '',
          'x-service-signature-previous': overlap['x-service-signature-previous'] ?? '',
        };
        expect(verifyWebhook(key, rawBody, serviceOnly).event).toBe('incident.declared');
      }
    });

    it('accepts a subscriber holding both secrets, and refuses a third', () => {
      expect(verifyWebhook([newSigningSecret(), newSecret], rawBody, overlap).attempt).toBe(1);
      expect(refusal(() => verifyWebhook(newSigningSecret(), rawBody, overlap))).toMatch(/matches/);
    });

    it('accepts the same overlap from the standardwebhooks library', () => {
      // The library verifies each space-separated v1 signature too: the overlap header is the standard form.
      for (const key of [secret, newSecret]) {
        expect(new Webhook(key).verify(rawBody, onlyStandard(overlap))).toEqual(JSON.parse(rawBody));
      }
    });
  });
});
