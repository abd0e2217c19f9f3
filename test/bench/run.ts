import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { AUTHORIZER_FUNCTION, functionNames } from '../../shared/topology/routes.js';
import { startBenchStack } from './bench-stack.js';
import { benchBundles, functionFolders } from './bundle-bench.js';
import { cleanUp, cleanUpOnSignals } from './cleanup.js';
import { benchHttp } from './http-bench.js';
import { managedWebhookSection } from './managed-webhook-bench.js';
import { bundleSection, httpSection, webhookSection } from './report.js';
import { scenarios } from './scenarios.js';
import { benchSdk, sdkSection } from './sdk-bench.js';
import {
  BUNDLE_TARGETS,
  INIT_RUNS,
  LOAD,
  SDK_TARGETS,
  SDK_VERIFY_RUNS,
  WEBHOOK_LOAD,
  WEBHOOK_TARGETS,
} from './settings.js';
import { benchWebhooks } from './webhook-bench.js';

/**
 * `npm run bench`: figures measured in one run, printed and written to .bench/results.json. Exits 0
 * when a target is missed (it is a report) and non-zero when a measurement itself failed.
 */
const PROCESS_MODEL =
  'Both sides are separate Node processes started with `node --import tsx` (the stack by startLocalStack,\n' +
  'the floor by the bench) on the same DynamoDB Local; autocannon runs in the bench process.';

/** `BENCH_ONLY=webhooks` measures the webhook part alone (latency, throughput against its floor, cut-offs). */
const webhooksOnly = process.env.BENCH_ONLY === 'webhooks';

const resultsFile = join(import.meta.dirname, '..', '..', '.bench', 'results.json');
const started = performance.now();
/** Progress on stderr with the time since the start, which shows where the run's time goes. */
const progress = (line: string) =>
  console.error(`bench [${((performance.now() - started) / 1000).toFixed(1)} s]: ${line}`);

async function main(): Promise<number> {
  cleanUpOnSignals();
  const loadAtStart = loadavg()[0] ?? 0;

  const functions = functionFolders([AUTHORIZER_FUNCTION, ...functionNames()]);
  progress(
    webhooksOnly
      ? 'BENCH_ONLY=webhooks: the webhook part alone'
      : `bundling ${functions.join(', ')} and timing cold imports …`,
  );
  const bundles = webhooksOnly ? undefined : await benchBundles(functions);
  if (!webhooksOnly) progress('bundling the SDK and timing verifyWebhook …');
  const sdk = webhooksOnly ? undefined : await benchSdk();
  const stack = await startBenchStack(progress);
  const http = webhooksOnly ? undefined : await benchHttp(stack, scenarios, progress);
  const webhooks = await benchWebhooks(stack, progress);
  progress('stopping the stack and the floors …');
  await cleanUp();

  const failures = [
    ...(bundles?.failures ?? []).map(
      (f) => `${f.functionName}: the ${f.step} failed: ${f.error.split('\n')[0]}`,
    ),
    ...(http?.scenarios ?? []).flatMap((s) => [
      ...(s.stack.errors > 0
        ? [`${s.name}: ${s.stack.errors} errors on the STACK side ${JSON.stringify(s.stack.statusCodes)}`]
        : []),
      ...(s.floor.errors > 0
        ? [`${s.name}: ${s.floor.errors} errors on the floor side ${JSON.stringify(s.floor.statusCodes)}`]
        : []),
    ]),
    ...webhooks.failures,
  ];
  const seconds = (performance.now() - started) / 1000;
  const machineLoad = { atStart: loadAtStart, atEnd: loadavg()[0] ?? 0, cpus: cpus().length };
  const busy = Math.max(machineLoad.atStart, machineLoad.atEnd) > machineLoad.cpus;

  console.log(
    [
      '',
      `Membership and Incident Service benchmark: Node ${process.version}, ${cpus().length} CPUs, ${seconds.toFixed(0)} s`,
      `Machine load average (1 min): ${machineLoad.atStart.toFixed(1)} at start, ${machineLoad.atEnd.toFixed(1)} at end` +
        (busy ? ' -- more than the CPUs: other work shared the machine, absolute figures are noisy.' : ''),
      '',
      ...(http ? [httpSection(http, PROCESS_MODEL), ''] : []),
      webhookSection(webhooks),
      '',
      managedWebhookSection(webhooks.managed),
      '',
      ...(bundles ? [bundleSection(bundles), ''] : []),
      ...(sdk ? [sdkSection(sdk), ''] : []),
      ...(failures.length > 0
        ? [
            '!!! MEASUREMENT FAILED: the figures above are incomplete or not valid:',
            ...failures.map((f) => `!!!   ${f}`),
            '',
          ]
        : []),
      `Figures written to ${resultsFile}`,
    ].join('\n'),
  );

  mkdirSync(join(resultsFile, '..'), { recursive: true });
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        measuredAt: new Date().toISOString(),
        node: process.version,
        machineLoad,
        seconds,
        http: { load: LOAD, processModel: PROCESS_MODEL, ...http },
        webhooks: { targets: WEBHOOK_TARGETS, load: WEBHOOK_LOAD, ...webhooks },
        bundles: { targets: BUNDLE_TARGETS, initRuns: INIT_RUNS, ...bundles },
        sdk: { targets: SDK_TARGETS, verifyRuns: SDK_VERIFY_RUNS, ...sdk },
        failures,
      },
      null,
      2,
    )}\n`,
  );
  return failures.length > 0 ? 1 : 0;
}

main()
  .then((code) => {
    process.exitCode = code;
  })
  .catch(async (error: unknown) => {
    console.error('bench: the measurement failed:', error);
    await cleanUp();
    process.exitCode = 1;
  });
