import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { onCleanup } from './cleanup.js';

const root = join(import.meta.dirname, '..', '..');

export interface DeliveryFloorConfig {
  /** The emulator's data folder, made and removed by the bench. */
  dataDir: string;
  secret: string;
  warmupUrl: string;
  warmupMessages: number;
  url: string;
  messages: number;
  receivers: number;
  batchSize: number;
  /** The stack's DynamoDB Local and table: the floor writes each delivery's log item there too. */
  dynamodbEndpoint: string;
  tableName: string;
}

export interface DeliveryFloorResult {
  /** Seconds to send the measured messages, before any of them is received. */
  sendSeconds: number;
  /** From the first ReceiveMessage of the measured run to its last DeleteMessageBatch. */
  deliverSeconds: number;
  postFailures: number;
  deleteFailures: number;
}

export const RESULT_PREFIX = 'delivery floor result ';

/**
 * Runs delivery-floor.ts to the end in its own process (`node --import tsx`, as the stack runs),
 * and returns the result line it prints. Bounded: a floor that hangs is killed and reported.
 */
export async function runDeliveryFloor(config: DeliveryFloorConfig, timeoutMs: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'delivery-floor.ts')], {
    cwd: root,
    env: { ...process.env, BENCH_DELIVERY_FLOOR_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  onCleanup(kill, kill);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(kill, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  const line = output.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  if (code !== 0 || !line) {
    throw new Error(`The delivery floor failed (exit ${code ?? 'killed'}):\n${output.slice(-2000)}`);
  }
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as DeliveryFloorResult;
}
