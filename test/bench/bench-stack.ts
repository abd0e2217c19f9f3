import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalStackInfo, readStackInfo } from '../../shared/topology/local-stack.js';
import { mis, type RunningStack, startLocalStack } from '../support/local-stack.js';
import { onCleanup } from './cleanup.js';
import type { BenchCaller } from './scenarios.js';
import { BENCH_RATE_LIMIT } from './settings.js';

/**
 * DynamoDB Local keeps its data in SQLite files and syncs each write to disk: here that made it
 * about five times slower on disk than on a RAM disk (seeding 10,000 members: ~100 s against
 * ~20 s), and disk latency would fill both sides' figures with noise that has nothing to do with
 * the service. Both sides use the same instance, so the comparison holds.
 */
export const RAM_DISK = '/dev/shm';

/** A temporary folder on the RAM disk when there is one, removed by the bench's cleanup. */
export function benchTempDir(prefix: string): string {
  const dir = mkdtempSync(join(existsSync(RAM_DISK) ? RAM_DISK : tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  onCleanup(remove, remove);
  return dir;
}

export interface BenchStack {
  dataDir: string;
  info: LocalStackInfo;
  /** The API's base URL on 127.0.0.1. */
  baseUrl: string;
}

/** The stack's Java child survives a SIGKILLed parent; the pid file start.ts keeps finds it. */
function killStackNow(stack: RunningStack): void {
  stack.process.kill('SIGKILL');
  try {
    const pid = Number(readFileSync(join(stack.dataDir, 'dynamodb', 'dynamodb-local.pid'), 'utf8'));
    if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal')) process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Starts the local stack as `npm start` does, on the RAM disk; stopped by the bench's cleanup. The
 * bench's own writes (seeding) go through the service's store code, straight to the stack's table.
 */
export async function startBenchStack(log: (line: string) => void): Promise<BenchStack> {
  const dataDir = benchTempDir('mis-bench-stack-');
  log('starting the local stack (npm start) …');
  const stack = await startLocalStack({ DATA_DIR: dataDir });
  onCleanup(
    async () => {
      await stack.stop();
    },
    () => killStackNow(stack),
  );
  const info = readStackInfo(dataDir);
  if (!info) throw new Error('The local stack is running but wrote no stack.json.');
  process.env.DYNAMODB_ENDPOINT = info.dynamodbEndpoint;
  process.env.TABLE_NAME = info.tableName;
  // The stack listens on 127.0.0.1 but names itself localhost, which may resolve to ::1 first.
  return { dataDir, info, baseUrl: info.baseUrl.replace('//localhost:', '//127.0.0.1:') };
}

/** An enterprise organisation of its own, with the bench's rate limit, and a token for it (mis). */
export async function newCaller(stack: BenchStack, name: string, scopes: string): Promise<BenchCaller> {
  const org = await mis<{ id: string; rateLimitPerMinute: number }>(
    stack.dataDir,
    ...['org', 'create', '--name', `Bench ${name}`, '--tier', 'enterprise'],
    ...['--rate-limit', String(BENCH_RATE_LIMIT)],
  );
  const token = await mis<{ id: string; token: string }>(
    stack.dataDir,
    ...['token', 'issue', '--org', org.id, '--scopes', scopes, '--name', 'bench'],
  );
  return {
    organisationId: org.id,
    tokenId: token.id,
    authorization: `Bearer ${token.token}`,
    rateLimitPerMinute: org.rateLimitPerMinute,
  };
}
