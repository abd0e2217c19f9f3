import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * What the local stack (`npm start`) and the operator CLI share: the stack file under DATA_DIR that
 * says where the running stack's gateway, DynamoDB and queues are, the register of running stacks
 * through which the CLI finds one started with any DATA_DIR, the local stand-in for the KMS key, and
 * the gateway path that flushes the authorizer cache.
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

/** The DATA_DIR the stack keeps its state in: `.local` of the folder it is started from by default. */
export const DEFAULT_DATA_DIR = '.local';

export function dataDir(): string {
  return resolve(process.env.DATA_DIR || DEFAULT_DATA_DIR);
}

const stackFile = (dir: string) => join(dir, 'stack.json');

/**
 * One file per running stack naming its DATA_DIR, in the user's temporary folder: a machine's
 * stacks do not outlive a reboot, and every checkout's CLI looks in the same place.
 */
export function stackRegisterDir(): string {
  return join(tmpdir(), `membership-incident-service-${process.getuid?.() ?? userInfo().username}`);
}

const registerEntry = (dir: string) =>
  join(stackRegisterDir(), `${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.json`);

export function writeStackInfo(dir: string, info: LocalStackInfo): void {
  writeFileSync(stackFile(dir), `${JSON.stringify(info, null, 2)}\n`);
  try {
    registerLocalStack(dir);
  } catch {
    // Without the register, the CLI still finds the stack through DATA_DIR.
  }
}

/** Notes in the register that a stack keeps its state in `dir` (its stack file says whether it runs). */
export function registerLocalStack(dir: string): void {
  mkdirSync(stackRegisterDir(), { recursive: true, mode: 0o700 });
  writeFileSync(registerEntry(dir), `${JSON.stringify({ dataDir: dir })}\n`);
}

export function removeStackInfo(dir: string): void {
  rmSync(stackFile(dir), { force: true });
  rmSync(registerEntry(dir), { force: true });
}

/** The stack file under `dir`, if the process that wrote it is still alive. */
export function readStackInfo(dir: string): LocalStackInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(stackFile(dir), 'utf8')) as LocalStackInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}

export interface RunningLocalStack {
  dataDir: string;
  info: LocalStackInfo;
}

/** Every registered stack that is still running; entries of stacks that died (SIGKILL) are removed. */
export function runningLocalStacks(): RunningLocalStack[] {
  let entries: string[];
  try {
    entries = readdirSync(stackRegisterDir()).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const running: RunningLocalStack[] = [];
  for (const name of entries) {
    const entry = join(stackRegisterDir(), name);
    try {
      const { dataDir } = JSON.parse(readFileSync(entry, 'utf8')) as { dataDir: string };
      const info = readStackInfo(dataDir);
      if (info) running.push({ dataDir, info });
      else rmSync(entry, { force: true });
    } catch {
      // Being written or removed by a stack right now.
    }
  }
  return running.sort((a, b) => a.dataDir.localeCompare(b.dataDir));
}

/**
 * The local stack the operator CLI acts on: the one under DATA_DIR when it is set; else the one
 * under `.local` of the current folder, or else the only one running, whatever its DATA_DIR. When
 * there is none, or several, `problem` says how to point at the right one.
 */
export function locateLocalStack(): RunningLocalStack | { problem: string } {
  const explicit = process.env.DATA_DIR;
  const dir = dataDir();
  const info = readStackInfo(dir);
  if (info) return { dataDir: dir, info };
  const running = runningLocalStacks();
  const listed = running.map((s) => `DATA_DIR=${shellWord(s.dataDir)} (${s.info.baseUrl})`).join(', ');
  if (explicit) {
    return {
      problem:
        `The local stack with DATA_DIR=${dir} is not running: start it with \`npm start\`` +
        (running.length > 0 ? `, or set DATA_DIR to a running one: ${listed}.` : '.'),
    };
  }
  const [only, ...others] = running;
  if (only && others.length === 0) return only;
  if (only) {
    return {
      problem: `${running.length} local stacks are running; choose one by setting DATA_DIR, e.g. \`DATA_DIR=${shellWord(only.dataDir)} npx mis …\`: ${listed}.`,
    };
  }
  return {
    problem:
      'The local stack is not running: start it with `npm start`, or pass --stack <name> for a deployed stack.',
  };
}

/** `value` as one word of a POSIX shell command line, quoted only when it needs to be. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
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
