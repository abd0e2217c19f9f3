import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type LocalStackInfo,
  locateLocalStack,
  removeStackInfo,
  runningLocalStacks,
  shellWord,
  stackRegisterDir,
  writeStackInfo,
} from '../../shared/topology/local-stack.js';

/**
 * How `mis` finds the local stack: under DATA_DIR when it is set, else under `.local` of the
 * current folder, else the only stack running whatever its DATA_DIR (through the register that
 * every running stack writes itself into), else a message that says how to choose.
 */
let scratch: string;
const cwd = process.cwd();

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'mis-locate-'));
  // The register lives under the OS temporary folder: this test's own, not the machine's.
  vi.stubEnv('TMPDIR', join(scratch, 'tmp'));
  mkdirSync(join(scratch, 'tmp'));
  vi.stubEnv('DATA_DIR', undefined);
  // No `.local` of a stack that a developer runs in the project.
  process.chdir(scratch);
});
afterEach(() => {
  process.chdir(cwd);
  vi.unstubAllEnvs();
});

/** A stack file as `npm start` writes it, for a stack whose process is `pid`. */
function started(name: string, pid = process.pid, port = 3000): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  const info: LocalStackInfo = {
    baseUrl: `http://localhost:${port}/api/public/v1`,
    origin: `http://localhost:${port}`,
    dynamodbEndpoint: 'http://127.0.0.1:8000',
    tableName: 'membership-incident-service',
    pid,
  };
  writeStackInfo(dir, info);
  return dir;
}

const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid;

describe('locateLocalStack', () => {
  it('finds the only running stack whatever its DATA_DIR, from any folder', () => {
    const dir = started('custom data dir');
    expect(stackRegisterDir().startsWith(join(scratch, 'tmp'))).toBe(true);
    expect(locateLocalStack()).toMatchObject({ dataDir: dir, info: { pid: process.pid } });
  });

  it("prefers the current folder's .local, as npm start without DATA_DIR uses it", () => {
    started('other');
    const local = started('.local');
    expect(locateLocalStack()).toMatchObject({ dataDir: local });
  });

  it('takes the stack under DATA_DIR when it is set, among several', () => {
    started('first');
    const second = started('second');
    vi.stubEnv('DATA_DIR', second);
    expect(locateLocalStack()).toMatchObject({ dataDir: second });
  });

  it('names every running stack and how to choose one when several run and DATA_DIR is not set', () => {
    const first = started('first', process.pid, 3000);
    const second = started("it's here", process.pid, 3100);
    const found = locateLocalStack();
    expect(found).toEqual({
      problem:
        `2 local stacks are running; choose one by setting DATA_DIR, e.g. \`DATA_DIR=${first} npx mis …\`: ` +
        `DATA_DIR=${first} (http://localhost:3000/api/public/v1), ` +
        `DATA_DIR='${second.replace("'", `'\\''`)}' (http://localhost:3100/api/public/v1).`,
    });
  });

  it('says that the stack under DATA_DIR is not running, and which ones are', () => {
    const running = started('running');
    vi.stubEnv('DATA_DIR', join(scratch, 'stopped'));
    expect(locateLocalStack()).toEqual({
      problem:
        `The local stack with DATA_DIR=${join(scratch, 'stopped')} is not running: start it with \`npm start\`, ` +
        `or set DATA_DIR to a running one: DATA_DIR=${running} (http://localhost:3000/api/public/v1).`,
    });
  });

  it('ignores and forgets stacks that died without removing their stack file (SIGKILL)', () => {
    started('killed', deadPid());
    expect(readdirSync(stackRegisterDir())).toHaveLength(1);
    expect(runningLocalStacks()).toEqual([]);
    expect(readdirSync(stackRegisterDir())).toEqual([]);
    expect(locateLocalStack()).toEqual({
      problem:
        'The local stack is not running: start it with `npm start`, or pass --stack <name> for a deployed stack.',
    });
  });

  it('forgets a stack that stopped', () => {
    const dir = started('stopped');
    removeStackInfo(dir);
    expect(existsSync(join(dir, 'stack.json'))).toBe(false);
    expect(readdirSync(stackRegisterDir())).toEqual([]);
    expect(runningLocalStacks()).toEqual([]);
  });
});

describe('shellWord', () => {
  it('quotes a value only when a shell would split or expand it, and the shell gives it back', () => {
    expect(shellWord('/tmp/mis-stack-Ab12/.local')).toBe('/tmp/mis-stack-Ab12/.local');
    for (const value of ["/tmp/it's here", 'a b', '$HOME', '`x`', '*', '', 'a"b\\c']) {
      const echoed = execFileSync('/bin/sh', ['-c', `printf %s ${shellWord(value)}`], { encoding: 'utf8' });
      expect(echoed).toBe(value);
    }
  });
});
