import { createHmac } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret } from '../../shared/domain/webhook-endpoint.js';
import { signPayload, signStandardWebhook, webhookHeaders } from '../../shared/domain/webhook-signature.js';

const secret = newSigningSecret();
const body = JSON.stringify({
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
const now = () => Math.floor(Date.now() / 1000);

function headersFor(payload: string | Buffer, timestampSeconds = now(), serviceName = 'service') {
  return webhookHeaders({
    secret,
    deliveryId: '0d9c1c52-7b1e-4f7a-9f7e-0a4c5b6d7e8f',
    event: 'incident.declared',
    body: payload,
    timestampSeconds,
    serviceName,
  });
}

describe('the GitHub-style signature', () => {
  it('is verified by @octokit/webhooks-methods with the secret string as the key', async () => {
    const signature = headersFor(body)['x-service-signature'] ?? '';
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verify(secret, body, signature)).toBe(true);
  });

  it('is the HMAC of the exact bytes, also for non-ASCII text', () => {
    const bytes = Buffer.from(body, 'utf8');
    const expected = `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;
    expect(signPayload(secret, body)).toBe(expected);
    expect(signPayload(secret, bytes)).toBe(expected);
  });

  it('fails for another body, another secret or re-serialised JSON', async () => {
    const signature = signPayload(secret, body);
    expect(await verify(secret, body.replace('"high"', '"low"'), signature)).toBe(false);
    expect(await verify(newSigningSecret(), body, signature)).toBe(false);
    expect(await verify(secret, JSON.stringify(JSON.parse(body), null, 2), signature)).toBe(false);
  });
});

describe('the Standard Webhooks signature', () => {
  it('is verified by the standardwebhooks library with the same whsec_ secret', () => {
    const headers = headersFor(body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('matches what the library itself signs', () => {
    const at = new Date('2026-11-22T10:00:00Z');
    const id = 'msg_1';
    expect(signStandardWebhook(secret, id, at.getTime() / 1000, body)).toBe(
      new Webhook(secret).sign(id, at, body),
    );
  });

  it('is refused for a tampered body, another id or an old timestamp (replay)', () => {
    const headers = headersFor(body);
    const webhook = new Webhook(secret);
    expect(() => webhook.verify(`${body} `, headers)).toThrow();
    expect(() => webhook.verify(body, { ...headers, 'webhook-id': 'another' })).toThrow();
    const old = headersFor(body, now() - 3600);
    expect(() => webhook.verify(body, old)).toThrow(/timestamp/i);
  });
});

describe('the delivery headers', () => {
  it('are all present, named after the service, with the delivery id twice', () => {
    const headers = headersFor(body, 1_795_000_000);
    expect(Object.keys(headers).sort()).toEqual(
      [
        'content-type',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
        'x-service-delivery',
        'x-service-event',
        'x-service-signature',
      ].sort(),
    );
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'service-webhooks/1.0',
      'x-service-event': 'incident.declared',
      'x-service-delivery': '0d9c1c52-7b1e-4f7a-9f7e-0a4c5b6d7e8f',
      'webhook-id': '0d9c1c52-7b1e-4f7a-9f7e-0a4c5b6d7e8f',
      'webhook-timestamp': '1795000000',
    });
  });

  it('take a deployment name in place of "service"', () => {
    const headers = headersFor(body, now(), 'acme');
    expect(headers['x-acme-signature']).toBe(signPayload(secret, body));
    expect(headers['x-acme-delivery']).toBe('0d9c1c52-7b1e-4f7a-9f7e-0a4c5b6d7e8f');
    expect(headers['user-agent']).toBe('acme-webhooks/1.0');
    expect(headers['x-service-signature']).toBeUndefined();
  });
});

describe('the delivery headers during a secret rotation', () => {
  const current = newSigningSecret();
  const previous = newSigningSecret();
  const body = '{"event":"incident.declared","attempt":1}';
  const timestampSeconds = Math.floor(Date.now() / 1000);
  const headers = webhookHeaders({
    secret: current,
    previousSecret: previous,
    deliveryId: 'd-1',
    event: 'incident.declared',
    body,
    timestampSeconds,
    serviceName: 'service',
  });

  it('sign with the new secret and, beside it, the previous one in both schemes', async () => {
    expect(await verify(current, body, headers['x-service-signature'] ?? '')).toBe(true);
    expect(await verify(previous, body, headers['x-service-signature-previous'] ?? '')).toBe(true);
    expect(headers['webhook-signature']).toBe(
      `${signStandardWebhook(current, 'd-1', timestampSeconds, body)} ${signStandardWebhook(previous, 'd-1', timestampSeconds, body)}`,
    );
  });

  it('verify with either secret in the standardwebhooks library, and with no other', () => {
    for (const secret of [current, previous])
      expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  });

  it('carry no previous signature outside an overlap', () => {
    const single = webhookHeaders({
      secret: current,
      deliveryId: 'd-1',
      event: 'incident.declared',
      body,
      timestampSeconds,
      serviceName: 'service',
    });
    expect(single['x-service-signature-previous']).toBeUndefined();
    expect(single['webhook-signature']).toMatch(/^v1,\S+$/);
  });
});
