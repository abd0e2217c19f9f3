import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { etagOf } from '../../shared/domain/etag.js';
import { generateToken } from '../../shared/domain/token.js';
import { newSigningSecret } from '../../shared/domain/webhook-endpoint.js';
import { webhookHeaders } from '../../shared/domain/webhook-signature.js';
import { findSecrets } from '../support/log-secrets.js';

const logLine = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 'DEBUG', message: 'm', timestamp: new Date().toISOString(), ...fields });

const kindsIn = (line: string, known: string[] = []) => findSecrets(line, known).map((f) => f.kind);

describe('the check that no log holds a secret', () => {
  const { token, prefix, hash } = generateToken('svc');
  const secret = newSigningSecret();
  const headers = webhookHeaders({
    secret,
    deliveryId: randomUUID(),
    event: 'incident.declared',
    body: '{"a":1}',
    timestampSeconds: 1_800_000_000,
    serviceName: 'service',
  });

  it('finds a bearer token, and its secret part alone', () => {
    expect(kindsIn(logLine({ authorization: `Bearer ${token}` }))).toContain('bearer token');
    expect(kindsIn(logLine({ secret: token.split('_')[2] }))).toEqual(['token secret']);
  });

  it('finds a signing secret, and its key alone', () => {
    expect(kindsIn(logLine({ secret }))).toContain('webhook signing secret');
    expect(kindsIn(logLine({ key: secret.slice('whsec_'.length) }))).toEqual([
      '32-byte base64 value (signing key or signature)',
    ]);
  });

  it('finds both signatures', () => {
    expect(kindsIn(logLine({ signature: headers['x-service-signature'] }))).toEqual(['signature (sha256=)']);
    expect(kindsIn(logLine({ signature: headers['webhook-signature'] }))).toContain('signature (v1,)');
  });

  it('finds a secret issued during the run in any form the patterns miss', () => {
    const spaced = `${secret.slice(0, 20)} ${secret.slice(20)}`;
    expect(kindsIn(logLine({ spaced }), [secret.slice(20)])).toEqual(['secret issued during the run']);
  });

  it('says which line, and shows only the start of the secret', () => {
    const [found] = findSecrets(`first line\n${logLine({ authorization: `Bearer ${token}` })}`);
    expect(found?.line).toBe(2);
    expect(found?.excerpt).toContain(token.slice(0, 8));
    expect(found?.excerpt).not.toContain(token);
  });

  it('leaves what a log may hold alone: ids, prefixes, hashes, tags, times', () => {
    const line = logLine({
      tokenPrefix: prefix,
      tokenId: `tok_${prefix}`,
      organisationId: randomUUID(),
      tokenHash: hash,
      md5OfBody: createHash('md5').update('x').digest('hex'),
      sha1: createHash('sha1').update('x').digest('hex'),
      etag: etagOf('body'),
      path: '/api/public/v1/webhooks/0b9f6f4e-1a62-4d1e-9d6e-8c1f0c1f2b3a/deliveries',
      at: new Date().toISOString(),
      sentTimestamp: String(Date.now()),
    });
    expect(findSecrets(line)).toEqual([]);
  });
});
