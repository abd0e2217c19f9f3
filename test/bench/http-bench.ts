import { BASE_PATH } from '../../shared/config.js';
import { routes } from '../../shared/topology/routes.js';
import { type BenchStack, newCaller } from './bench-stack.js';
import { onCleanup } from './cleanup.js';
import { startFloor } from './floor-process.js';
import type { FloorRoute } from './floor-work.js';
import { type LoadFigures, measureSideBySide, warmUp } from './load.js';
import type { BenchCaller, Scenario } from './scenarios.js';
import { LOAD } from './settings.js';

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
  /** GET routes of shared/topology/routes.ts that no scenario measures. */
  unmeasuredRoutes: string[];
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
 * Seeds every scenario on the bench's stack, starts the floor on the stack's own DynamoDB Local,
 * then loads the stack and the floor in turn with the same client.
 */
export async function benchHttp(
  stack: BenchStack,
  scenarios: Scenario[],
  log: (line: string) => void,
): Promise<HttpReport> {
  const { info } = stack;
  log('issuing one organisation and token per scenario (mis) and seeding …');
  const callers = await Promise.all(
    scenarios.map((scenario) => newCaller(stack, scenario.name, scenario.scopes)),
  );
  const stackBase = stack.baseUrl;
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
  // Idle from here on; the webhook part that follows shares the machine with the stack alone.
  await floor.stop();

  const measured = new Set(scenarios.map((s) => s.path));
  return {
    scenarios: figures,
    unmeasuredRoutes: routes
      .filter((r) => r.method === 'GET' && r.access !== 'public' && !measured.has(r.path))
      .map((r) => `GET ${r.path}`),
  };
}
