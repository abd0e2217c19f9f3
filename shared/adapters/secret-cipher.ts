import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { checkAccess } from './access-guard.js';

/**
 * Signing secrets are encrypted before they are stored. On AWS with the stack's KMS key (the key
 * never leaves KMS; the endpoint's ids are the encryption context, so a ciphertext copied onto
 * another endpoint does not decrypt). KMS has no local engine, so the local stack uses AES-256-GCM
 * with a key file kept beside its data; `LOCAL_SECRET_KEY` (base64, 32 bytes) selects it.
 */
export interface SecretCipher {
  encrypt(plaintext: string, context: Record<string, string>): Promise<string>;
  decrypt(ciphertext: string, context: Record<string, string>): Promise<string>;
}

export function kmsCipher(keyId: string, client = new KMSClient({})): SecretCipher {
  return {
    async encrypt(plaintext, context) {
      const { CiphertextBlob } = await client.send(
        new EncryptCommand({
          KeyId: keyId,
          Plaintext: Buffer.from(plaintext, 'utf8'),
          EncryptionContext: context,
        }),
      );
      if (!CiphertextBlob) throw new Error('KMS returned no ciphertext');
      return `kms:${Buffer.from(CiphertextBlob).toString('base64')}`;
    },
    async decrypt(ciphertext, context) {
      const { Plaintext } = await client.send(
        new DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: Buffer.from(ciphertext.replace(/^kms:/, ''), 'base64'),
          EncryptionContext: context,
        }),
      );
      if (!Plaintext) throw new Error('KMS returned no plaintext');
      return Buffer.from(Plaintext).toString('utf8');
    },
  };
}

function contextBytes(context: Record<string, string>): Buffer {
  return Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))), 'utf8');
}

export function localCipher(key: Buffer): SecretCipher {
  if (key.length !== 32) throw new Error('The local secret key must be 32 bytes');
  return {
    async encrypt(plaintext, context) {
      checkAccess('kms:Encrypt');
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(contextBytes(context));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `local:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
    },
    async decrypt(ciphertext, context) {
      checkAccess('kms:Decrypt');
      const raw = Buffer.from(ciphertext.replace(/^local:/, ''), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(contextBytes(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

let configured: SecretCipher | undefined;

/** The cipher this process uses: KMS when `SECRETS_KMS_KEY_ID` is set (AWS), else the local key. */
export function secretCipher(): SecretCipher {
  if (configured) return configured;
  const keyId = process.env.SECRETS_KMS_KEY_ID;
  const localKey = process.env.LOCAL_SECRET_KEY;
  if (keyId) configured = kmsCipher(keyId);
  else if (localKey) configured = localCipher(Buffer.from(localKey, 'base64'));
  else
    throw new Error(
      'Set SECRETS_KMS_KEY_ID (AWS) or LOCAL_SECRET_KEY (local stack) to store signing secrets',
    );
  return configured;
}
