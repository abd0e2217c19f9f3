import autocannon from 'autocannon';
import { LOAD } from './settings.js';

export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Completed 2xx responses in the measured seconds. */
  requests: number;
  /** Socket errors (timeouts included) and non-2xx answers: any of them means the run measured something else. */
  errors: number;
  statusCodes: Record<string, number>;
}

interface Slice {
  seconds: number;
  latencies: number[];
  errors: number;
  statusCodes: Record<string, number>;
}

async function fire({ url, headers }: LoadTarget, seconds: number): Promise<Slice> {
  const latencies: number[] = [];
  const instance = autocannon({
    url,
    headers,
    connections: LOAD.connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  });
  // autocannon's own histogram has 1 ms resolution; sub-millisecond latencies need the raw times.
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
  });
  const result = await instance;
  return {
    seconds: result.duration,
    latencies,
    errors: result.errors + result.non2xx,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
    ),
  };
}

/**
 * Load whose figures are dropped, on all targets at once (it measures nothing, so they may share
 * the machine): JIT compilation in Node and in DynamoDB Local's JVM, and the first connections.
 */
export async function warmUp(targets: LoadTarget[], seconds: number): Promise<void> {
  await Promise.all(targets.map((target) => fire(target, seconds)));
}

/** The nearest-rank percentile of ascending values. */
export function percentile(sorted: Float64Array, p: number): number {
  const index = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, index))] ?? Number.NaN;
}

function combine(slices: Slice[]): LoadFigures {
  const sorted = Float64Array.from(slices.flatMap((s) => s.latencies)).sort();
  const statusCodes: Record<string, number> = {};
  for (const slice of slices) {
    for (const [code, count] of Object.entries(slice.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  return {
    requestsPerSecond: sorted.length / slices.reduce((sum, s) => sum + s.seconds, 0),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    requests: sorted.length,
    errors: slices.reduce((sum, s) => sum + s.errors, 0),
    statusCodes,
  };
}

/**
 * Loads each target with the same fixed concurrency (LOAD.connections keep-alive connections, one
 * request in flight on each): a warm-up whose figures are dropped, then LOAD.durationSeconds each
 * in alternating slices, A B B A A B …, so that a drift of the machine's load hits both alike.
 */
export async function measureSideBySide(a: LoadTarget, b: LoadTarget): Promise<[LoadFigures, LoadFigures]> {
  await warmUp([a, b], LOAD.warmupSeconds);
  const slices: [Slice[], Slice[]] = [[], []];
  const rounds = Math.max(1, Math.round(LOAD.durationSeconds / LOAD.sliceSeconds));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
    for (const side of order) slices[side].push(await fire(side === 0 ? a : b, LOAD.sliceSeconds));
  }
  return [combine(slices[0]), combine(slices[1])];
}
