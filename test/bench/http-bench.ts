import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStackInfo } from '../../infra/local/stack-file.js';
import { BASE_PATH } from '../../shared/config.js';
import { routes } from '../../shared/routes.js';
import { mis, type RunningStack, startLocalStack } from '../support/local-stack.js';
import { onCleanup } from './cleanup.js';
import { startFloor } from './floor-process.js';
import type { FloorRoute } from './floor-work.js';
import { type LoadFigures, measureSideBySide, warmUp } from './load.js';
import type { BenchCaller, Scenario } from './scenarios.js';
import { BENCH_RATE_LIMIT, LOAD } from './settings.js';

export interface ScenarioFigures {
  name: string;
  path: string;
  stack: LoadFigures;
  floor: LoadFigures;
  /** Items the floor's reads return per request: what the endpoint's own reads have to go through. */
  floorItemsRead: number;
  /** stack ÷ floor: above 1 means the stack's median request takes longer. */
  p50Ratio: number;
  /** stack ÷ floor: below 1 means the stack answers fewer requests per second. */
  throughputRatio: number;
}

export interface HttpReport {
  scenarios: ScenarioFigures[];
  /** GET routes of shared/routes.ts that no scenario measures. */
  unmeasuredRoutes: string[];
}

/**
 * DynamoDB Local keeps its data in SQLite files and syncs each write to disk: here that made it
 * about five times slower on disk than on a RAM disk (seeding 10,000 members: ~100 s against
 * ~20 s), and disk latency would fill both sides' figures with noise that has nothing to do with
 * the service. Both sides use the same instance, so the comparison holds.
 */
const RAM_DISK = '/dev/shm';

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

async function newCaller(dataDir: string, scenario: Scenario): Promise<BenchCaller> {
  const org = await mis<{ id: string; rateLimitPerMinute: number }>(
    dataDir,
    ...['org', 'create', '--name', `Bench ${scenario.name}`, '--tier', 'enterprise'],
    ...['--rate-limit', String(BENCH_RATE_LIMIT)],
  );
  const token = await mis<{ id: string; token: string }>(
    dataDir,
    ...['token', 'issue', '--org', org.id, '--scopes', scenario.scopes, '--name', 'bench'],
  );
  return {
    organisationId: org.id,
    tokenId: token.id,
    authorization: `Bearer ${token.token}`,
    rateLimitPerMinute: org.rateLimitPerMinute,
  };
}

/**
 * One request before any load, so that a broken setup fails at once with its answer rather than
 * after a run of errors; the stack's body is also what the floor answers with.
 */
async function firstAnswer(url: string, authorization: string, side: string) {
  const response = await fetch(url, { headers: { authorization } });
  const body = await response.text();
  if (response.status !== 200) {
    throw new Error(`${side} answered ${response.status} to GET ${url}: ${body.slice(0, 300)}`);
  }
  return { body: JSON.parse(body) as unknown, itemsRead: Number(response.headers.get('x-items-read')) };
}

/**
 * Starts the local stack as `npm start` does, seeds every scenario, starts the floor on the
 * stack's own DynamoDB Local, then loads the stack and the floor in turn with the same client.
 */
export async function benchHttp(scenarios: Scenario[], log: (line: string) => void): Promise<HttpReport> {
  const dataDir = mkdtempSync(join(existsSync(RAM_DISK) ? RAM_DISK : tmpdir(), 'mis-bench-stack-'));
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  onCleanup(removeData, removeData);
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
  // Seeding goes through the service's own store code, straight to the stack's table.
  process.env.DYNAMODB_ENDPOINT = info.dynamodbEndpoint;
  process.env.TABLE_NAME = info.tableName;

  log('issuing one organisation and token per scenario (mis) and seeding …');
  const callers = await Promise.all(scenarios.map((scenario) => newCaller(dataDir, scenario)));
  // The stack listens on 127.0.0.1 but names itself localhost, which may resolve to ::1 first.
  const stackBase = info.baseUrl.replace('//localhost:', '//127.0.0.1:');
  const prepared: { scenario: Scenario; caller: BenchCaller; requestPath: string; stackUrl: string }[] = [];
  const routesByToken: Record<string, FloorRoute> = {};
  for (const [i, scenario] of scenarios.entries()) {
    const caller = callers[i] as BenchCaller;
    const params = (await scenario.seed?.(caller)) ?? {};
    const requestPath = scenario.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(params[name] ?? ''),
    );
    const stackUrl = `${stackBase}${requestPath}`;
    routesByToken[caller.authorization] = {
      tokenId: caller.tokenId,
      rateLimitPerMinute: caller.rateLimitPerMinute,
      reads: scenario.floorReads(caller, params),
      body: (await firstAnswer(stackUrl, caller.authorization, 'The stack')).body,
    };
    prepared.push({ scenario, caller, requestPath, stackUrl });
  }
  const floor = await startFloor({
    dynamodbEndpoint: info.dynamodbEndpoint,
    tableName: info.tableName,
    routes: routesByToken,
  });
  onCleanup(floor.stop, () => process.kill(floor.pid, 'SIGKILL'));

  const figures: ScenarioFigures[] = [];
  for (const [i, { scenario, caller, requestPath, stackUrl }] of prepared.entries()) {
    const floorUrl = `${floor.origin}${BASE_PATH}${requestPath}`;
    const { itemsRead } = await firstAnswer(floorUrl, caller.authorization, 'The floor');
    const headers = { authorization: caller.authorization };
    const stackTarget = { url: stackUrl, headers };
    const floorTarget = { url: floorUrl, headers };
    if (i === 0) {
      log('warming up DynamoDB Local, the stack and the floor …');
      await warmUp([stackTarget, floorTarget], LOAD.firstWarmupSeconds);
    }
    log(`${scenario.name}: loading the stack and the floor in turn …`);
    const [stackFigures, floorFigures] = await measureSideBySide(stackTarget, floorTarget);
    figures.push({
      name: scenario.name,
      path: scenario.path,
      stack: stackFigures,
      floor: floorFigures,
      floorItemsRead: itemsRead,
      p50Ratio: stackFigures.p50Ms / floorFigures.p50Ms,
      throughputRatio: stackFigures.requestsPerSecond / floorFigures.requestsPerSecond,
    });
  }

  const measured = new Set(scenarios.map((s) => s.path));
  return {
    scenarios: figures,
    unmeasuredRoutes: routes
      .filter((r) => r.method === 'GET' && r.access !== 'public' && !measured.has(r.path))
      .map((r) => `GET ${r.path}`),
  };
}
