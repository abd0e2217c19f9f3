import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { FloorConfig } from './floor-work.js';

const root = join(import.meta.dirname, '..', '..');

export interface RunningFloor {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts floor-server.ts the way startLocalStack starts the stack: `node --import tsx`, its own process. */
export async function startFloor(config: FloorConfig): Promise<RunningFloor> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'floor-server.ts')], {
    cwd: root,
    env: { ...process.env, BENCH_FLOOR_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The floor server did not start:\n${output}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const port = /floor listening on (\d+)/.exec(output)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(Number(port));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The floor server exited (${code}):\n${output}`));
    });
  });
  // Failures during the run are reported on the floor's stderr; pass them on.
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return {
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
