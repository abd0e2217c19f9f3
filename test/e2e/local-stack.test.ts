import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/ports.js';
import { mis, START_COMMAND, startLocalStack } from '../support/local-stack.js';
import { createOrganisation, issueToken } from '../support/scenario.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

function javaPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'dynamodb', 'dynamodb-local.pid'), 'utf8'));
}

function alive(pid: number): boolean {
  return existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
}

async function startFailure(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    await run(START_COMMAND[0], START_COMMAND[1], {
      cwd: root,
      env: { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'mis-fail-')), ...env },
      timeout: 30_000,
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failure = error as { code: number; stderr: string };
    return { code: failure.code, stderr: failure.stderr };
  }
}

describe('npm start', { timeout: 120_000 }, () => {
  it('keeps data across a restart and leaves no Java process behind on SIGTERM', async () => {
    const first = await startLocalStack();
    const org = await createOrganisation(first, 'Kept');
    const token = await issueToken(first, org.id, 'read');
    const java = javaPid(first.dataDir);
    expect(alive(java)).toBe(true);
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(alive(java)).toBe(false);

    const second = await startLocalStack({ DATA_DIR: first.dataDir });
    try {
      const response = await fetch(`${second.baseUrl}/ping`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { organisationId: string }).organisationId).toBe(org.id);
    } finally {
      await second.stop('SIGINT');
    }
  });

  it('recovers after SIGKILL: the orphaned Java process is ended at the next start', async () => {
    const first = await startLocalStack();
    const org = await createOrganisation(first, 'Killed');
    const orphan = javaPid(first.dataDir);
    await first.stop('SIGKILL');
    const second = await startLocalStack({ DATA_DIR: first.dataDir });
    try {
      expect(alive(orphan)).toBe(false);
      const token = await issueToken(second, org.id, 'read');
      const response = await fetch(`${second.baseUrl}/ping`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('says in one line what to do when the port is busy', async () => {
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    try {
      const { code, stderr } = await startFailure({ PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `error: port ${port} is already in use: stop what is using it, or start with PORT=<another port>.`,
      );
    } finally {
      blocker.close();
    }
  });

  it('says in one line what to do when java is missing', async () => {
    const bin = join(mkdtempSync(join(tmpdir(), 'mis-path-')), 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const { code, stderr } = await startFailure({ PATH: bin, PORT: String(await freePort()) });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^error: java was not found: .*apt-get install/);
  });

  it('points the CLI at npm start when no stack is running', async () => {
    try {
      await mis(mkdtempSync(join(tmpdir(), 'mis-none-')), 'org', 'create', '--name', 'Nobody');
      expect.unreachable('the CLI should fail without a running stack');
    } catch (error) {
      expect((error as { stderr: string }).stderr).toMatch(/not running.*npm start/);
    }
  });
});
