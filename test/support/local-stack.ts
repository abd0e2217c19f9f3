import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../infra/local/ports.js';
import { readStackInfo } from '../../shared/topology/local-stack.js';

const root = join(import.meta.dirname, '..', '..');

/** What `npm start` runs (package.json), without npm in between, so that signals reach the stack itself. */
export const START_COMMAND = [
  process.execPath,
  ['--disable-warning=ExperimentalWarning', '--import', 'tsx', 'infra/local/start.ts'],
] as const;

export interface RunningStack {
  baseUrl: string;
  dataDir: string;
  process: ChildProcess;
  output: () => string;
  /** `group`: the signal goes to the stack's whole process group (needs `ownProcessGroup`). */
  stop(signal?: NodeJS.Signals, options?: { group?: boolean }): Promise<number | null>;
}

/**
 * Starts the service exactly as `npm start` does, on a free port with its own data folder. With
 * `ownProcessGroup`, it leads a process group as a shell's job would, so that `stop('SIGKILL', {
 * group: true })` is what a terminal's kill of the whole job does.
 */
export async function startLocalStack(
  env: Record<string, string> = {},
  options: { ownProcessGroup?: boolean } = {},
): Promise<RunningStack> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'mis-stack-'));
  for (let tries = 1; ; tries++) {
    try {
      return await startOnce(env, dataDir, await freePort(), options);
    } catch (error) {
      // The port was free when chosen, but something (often one of the stack's own engines, which
      // take ephemeral ports too) bound it before the API did: choose again rather than fail.
      if (!(error instanceof PortTakenError) || tries >= 3) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startOnce(
  env: Record<string, string>,
  dataDir: string,
  port: number,
  { ownProcessGroup = false }: { ownProcessGroup?: boolean },
): Promise<RunningStack> {
  const child = spawn(START_COMMAND[0], START_COMMAND[1], {
    detached: ownProcessGroup,
    cwd: root,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN', ...env, PORT: String(port), DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!output.includes('API base URL')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      if (output.includes(`EADDRINUSE: address already in use 127.0.0.1:${port}`)) {
        await exited;
        throw new PortTakenError(`Port ${port} was taken before the stack bound it:\n${output}`);
      }
      throw new Error(`The local stack did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const info = readStackInfo(dataDir);
  if (!info) throw new Error(`The local stack wrote no stack.json:\n${output}`);
  return {
    baseUrl: info.baseUrl,
    dataDir,
    process: child,
    output: () => output,
    stop: async (signal = 'SIGTERM', { group = false } = {}) => {
      if (child.exitCode === null) {
        if (group && ownProcessGroup && child.pid) process.kill(-child.pid, signal);
        else child.kill(signal);
      }
      return exited;
    },
  };
}

/** Where `mis` notes the tokens and signing secrets it was given, for the check that no log holds one. */
export const issuedSecretsFile = (dataDir: string) => join(dataDir, 'issued-secrets.txt');

/** Runs the operator CLI as an operator would, against the stack that keeps its state in dataDir. */
export async function mis<T = unknown>(dataDir: string, ...args: string[]): Promise<T> {
  const { stdout } = await promisify(execFile)(process.execPath, ['infra/cli/bin.js', ...args, '--json'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir },
  });
  const result = JSON.parse(stdout) as T;
  const { token, secret } = (result ?? {}) as { token?: unknown; secret?: unknown };
  const issued = [token, secret].filter((value): value is string => typeof value === 'string');
  if (issued.length > 0) appendFileSync(issuedSecretsFile(dataDir), `${issued.join('\n')}\n`);
  return result;
}
