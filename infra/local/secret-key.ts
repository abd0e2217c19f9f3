import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The local stand-in for the KMS key that encrypts signing secrets: 32 random bytes kept beside the
 * local data (owner-only), so that secrets stored by one run decrypt in the next.
 */
export function localSecretKey(dataDir: string): string {
  const file = join(dataDir, 'signing-secrets.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}
