import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient, GetItemCommand, type GetItemCommandInput } from '@aws-sdk/client-dynamodb';
import {
  DecryptCommand,
  type DecryptCommandInput,
  EncryptCommand,
  type EncryptCommandInput,
  IncorrectKeyException,
  InvalidCiphertextException,
  KMSClient,
} from '@aws-sdk/client-kms';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { findStoredResponse, idempotencyWrite } from '../../shared/adapters/idempotency-store.js';
import { kmsCipher, secretCipher } from '../../shared/adapters/secret-cipher.js';
import type { TransactionItem } from '../../shared/adapters/transaction.js';
import {
  getWebhookEndpointWithSecret,
  prepareWebhookEndpoint,
} from '../../shared/adapters/webhook-endpoint-store.js';

/**
 * KMS has no local engine (the local stack encrypts with AES-GCM instead), so the AWS cipher is
 * tested against the SDK's client: every command's input is asserted exactly, and the mock keeps
 * KMS's one promise that matters here: a ciphertext decrypts only under the key and the
 * encryption context it was encrypted with.
 */
const KEY_ARN = 'arn:aws:kms:eu-central-1:111122223333:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const kms = mockClient(KMSClient);
const dynamodb = mockClient(DynamoDBClient);

/** What KMS holds for each ciphertext it issued; the blob itself says nothing. */
let sealed: Map<string, { keyId: string; plaintext: Buffer; context: Record<string, string> }>;

function behaveLikeKms(): void {
  sealed = new Map();
  kms.on(EncryptCommand).callsFake((input: EncryptCommandInput) => {
    const blob = randomBytes(64);
    sealed.set(blob.toString('base64'), {
      keyId: String(input.KeyId),
      plaintext: Buffer.from(input.Plaintext ?? new Uint8Array()),
      context: { ...input.EncryptionContext },
    });
    return {
      CiphertextBlob: new Uint8Array(blob),
      KeyId: input.KeyId,
      EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
    };
  });
  kms.on(DecryptCommand).callsFake((input: DecryptCommandInput) => {
    const entry = sealed.get(Buffer.from(input.CiphertextBlob ?? new Uint8Array()).toString('base64'));
    if (!entry || !isDeepStrictEqual(entry.context, { ...input.EncryptionContext })) {
      throw new InvalidCiphertextException({ message: 'Invalid ciphertext', $metadata: {} });
    }
    if (input.KeyId !== undefined && input.KeyId !== entry.keyId) {
      throw new IncorrectKeyException({ message: 'Incorrect key', $metadata: {} });
    }
    return { Plaintext: new Uint8Array(entry.plaintext), KeyId: entry.keyId };
  });
}

/** The table as GetItem sees it: items put by the code under test, by their keys. */
const table = new Map<string, Record<string, AttributeValue>>();
const keyOf = (item: Record<string, AttributeValue>) => {
  const { pk, sk } = unmarshall(item);
  return `${pk}|${sk}`;
};
function put(write: TransactionItem, change: Record<string, AttributeValue> = {}): void {
  const item = { ...(write.write.Put?.Item ?? {}), ...change };
  table.set(keyOf(item), item);
}

beforeAll(() => {
  vi.stubEnv('SECRETS_KMS_KEY_ID', KEY_ARN);
  vi.stubEnv('TABLE_NAME', 'membership-incident-service');
});
afterAll(() => {
  vi.unstubAllEnvs();
  kms.restore();
  dynamodb.restore();
});
beforeEach(() => {
  kms.reset();
  dynamodb.reset();
  behaveLikeKms();
  table.clear();
  dynamodb
    .on(GetItemCommand)
    .callsFake((input: GetItemCommandInput) => ({ Item: table.get(keyOf(input.Key ?? {})) }));
});

const encryptInputs = () => kms.commandCalls(EncryptCommand).map((call) => call.args[0].input);
const decryptInputs = () => kms.commandCalls(DecryptCommand).map((call) => call.args[0].input);

describe('kmsCipher', () => {
  const context = { organisationId: 'org_1', endpointId: 'ep_1' };

  it('sends the key id, the plaintext and the encryption context exactly, and keeps only an opaque blob', async () => {
    const ciphertext = await kmsCipher(KEY_ARN).encrypt('whsec_secret', context);
    expect(encryptInputs()).toEqual([
      { KeyId: KEY_ARN, Plaintext: Buffer.from('whsec_secret', 'utf8'), EncryptionContext: context },
    ]);
    expect(ciphertext).toMatch(/^kms:[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(ciphertext.slice(4), 'base64').toString('latin1')).not.toContain('whsec_secret');

    expect(await kmsCipher(KEY_ARN).decrypt(ciphertext, { ...context })).toBe('whsec_secret');
    expect(decryptInputs()).toEqual([
      {
        KeyId: KEY_ARN,
        CiphertextBlob: Buffer.from(ciphertext.slice(4), 'base64'),
        EncryptionContext: context,
      },
    ]);
  });

  it('does not decrypt under another context or with another key', async () => {
    const ciphertext = await kmsCipher(KEY_ARN).encrypt('whsec_secret', context);
    await expect(
      kmsCipher(KEY_ARN).decrypt(ciphertext, { ...context, endpointId: 'ep_2' }),
    ).rejects.toBeInstanceOf(InvalidCiphertextException);
    await expect(kmsCipher(KEY_ARN).decrypt(ciphertext, { organisationId: 'org_1' })).rejects.toBeInstanceOf(
      InvalidCiphertextException,
    );
    await expect(kmsCipher(`${KEY_ARN}-other`).decrypt(ciphertext, context)).rejects.toBeInstanceOf(
      IncorrectKeyException,
    );
  });
});

describe('a webhook endpoint signing secret on AWS (SECRETS_KMS_KEY_ID set)', () => {
  const newEndpoint = (organisationId: string) =>
    prepareWebhookEndpoint({
      organisationId,
      url: 'https://hooks.example.com/in',
      events: ['incident.declared'],
    });

  it('is encrypted by POST /webhooks under the stack key, with the organisation and endpoint ids as context', async () => {
    const { endpoint, secret, write } = await newEndpoint('org_1');
    expect(encryptInputs()).toEqual([
      {
        KeyId: KEY_ARN,
        Plaintext: Buffer.from(secret, 'utf8'),
        EncryptionContext: { organisationId: 'org_1', endpointId: endpoint.id },
      },
    ]);
    const stored = unmarshall(write.write.Put?.Item ?? {});
    expect(stored.encryptedSecret).toMatch(/^kms:/);
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  it('is decrypted for delivery with the same key and context', async () => {
    const { endpoint, secret, write } = await newEndpoint('org_1');
    put(write);
    const found = await getWebhookEndpointWithSecret('org_1', endpoint.id);
    expect(found?.secret).toBe(secret);
    const stored = unmarshall(write.write.Put?.Item ?? {});
    expect(decryptInputs()).toEqual([
      {
        KeyId: KEY_ARN,
        CiphertextBlob: Buffer.from(String(stored.encryptedSecret).slice(4), 'base64'),
        EncryptionContext: { organisationId: 'org_1', endpointId: endpoint.id },
      },
    ]);
  });

  it('does not decrypt once copied onto another endpoint, of the same or another organisation', async () => {
    const first = await newEndpoint('org_1');
    put(first.write);
    for (const organisationId of ['org_1', 'org_2']) {
      const other = await newEndpoint(organisationId);
      put(other.write, { encryptedSecret: first.write.write.Put?.Item?.encryptedSecret as AttributeValue });
      await expect(getWebhookEndpointWithSecret(organisationId, other.endpoint.id)).rejects.toBeInstanceOf(
        InvalidCiphertextException,
      );
    }
    // The original still decrypts: only the copies were refused.
    expect((await getWebhookEndpointWithSecret('org_1', first.endpoint.id))?.secret).toBe(first.secret);
  });
});

describe("the replayable copy of POST /webhooks' answer (it holds the secret)", () => {
  const request = { keyHash: 'a'.repeat(64), fingerprint: 'f'.repeat(64) };
  const response = { statusCode: 201, headers: {}, body: '{"secret":"whsec_replayed"}' };

  it('is encrypted under the organisation and the idempotency key, and decrypts only there', async () => {
    const write = await idempotencyWrite('org_1', request, response, secretCipher());
    expect(encryptInputs()).toEqual([
      {
        KeyId: KEY_ARN,
        Plaintext: Buffer.from(response.body, 'utf8'),
        EncryptionContext: { organisationId: 'org_1', idempotencyKey: request.keyHash },
      },
    ]);
    put(write);
    expect((await findStoredResponse('org_1', request.keyHash, secretCipher()))?.response.body).toBe(
      response.body,
    );
    expect(decryptInputs()[0]?.EncryptionContext).toEqual({
      organisationId: 'org_1',
      idempotencyKey: request.keyHash,
    });

    const moved = await idempotencyWrite('org_2', request, { ...response, body: '{}' }, secretCipher());
    put(moved, { body: write.write.Put?.Item?.body as AttributeValue });
    await expect(findStoredResponse('org_2', request.keyHash, secretCipher())).rejects.toBeInstanceOf(
      InvalidCiphertextException,
    );
  });
});
