import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * What the local stack (`npm start`) and the operator CLI share: the stack file under DATA_DIR that
 * says where the running stack's gateway, DynamoDB and queues are, the local stand-in for the KMS
 * key, and the gateway path that flushes the authorizer cache.
 */

/** What a running local stack tells the operator CLI: where its gateway, DynamoDB and queues are. */
export interface LocalStackInfo {
  baseUrl: string;
  origin: string;
  dynamodbEndpoint: string;
  tableName: string;
  pid: number;
  /** The SQS emulator and the delivery queues (`mis dlq`); absent in a stack file written without them. */
  sqsEndpoint?: string;
  deliveryQueueUrl?: string;
  deadLetterQueueUrl?: string;
}

export function dataDir(): string {
  return resolve(process.env.DATA_DIR || '.local');
}

const stackFile = (dir: string) => join(dir, 'stack.json');

export function writeStackInfo(dir: string, info: LocalStackInfo): void {
  writeFileSync(stackFile(dir), `${JSON.stringify(info, null, 2)}\n`);
}

export function removeStackInfo(dir: string): void {
  rmSync(stackFile(dir), { force: true });
}

export function readStackInfo(dir: string): LocalStackInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(stackFile(dir), 'utf8')) as LocalStackInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}

/** Path used by `mis token revoke` to flush the cache, as FlushStageAuthorizersCache does on AWS. */
export const FLUSH_CACHE_PATH = '/__local/authorizer-cache';

/**
 * The local stand-in for the KMS key that encrypts signing secrets: 32 random bytes kept beside the
 * local data (owner-only), so that secrets stored by one run decrypt in the next.
 */
export function localSecretKey(dataDir: string): string {
  const file = join(dataDir, 'signing-secrets.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}
