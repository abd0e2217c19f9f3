import { DELIVERY_TIMEOUT_MS } from '../../shared/adapters/webhook-sender.js';
import type { BundleReport } from './bundle-bench.js';
import type { HttpReport } from './http-bench.js';
import { BUNDLE_TARGETS, INIT_RUNS, LOAD, WEBHOOK_LOAD, WEBHOOK_TARGETS } from './settings.js';
import type { CutoffFigures, DeliveryRun, Spread, WebhookReport } from './webhook-bench.js';

type Cell = string | number;

/** A plain text table: text columns left-aligned, numeric ones right-aligned. */
export function table(header: string[], rows: Cell[][]): string {
  const text = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, c) => Math.max(...text.map((row) => row[c]?.length ?? 0)));
  const numeric = header.map((_, c) => rows.every((row) => /^[\d.,×-]+( ms)?$/.test(String(row[c]))));
  const line = (row: string[]) =>
    row
      .map((cell, c) => (numeric[c] ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd();
  const [head = [], ...body] = text;
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

const ms = (value: number) => value.toFixed(2);
const whole = (value: number) => Math.round(value).toLocaleString('en');
const ratio = (value: number) => `${value.toFixed(2)}×`;

export function httpSection(report: HttpReport, processModel: string): string {
  const rows = report.scenarios.flatMap((s) => [
    [s.name, 'stack', whole(s.stack.requestsPerSecond), ms(s.stack.p50Ms), ms(s.stack.p99Ms), s.stack.errors],
    ['', 'floor', whole(s.floor.requestsPerSecond), ms(s.floor.p50Ms), ms(s.floor.p99Ms), s.floor.errors],
  ]);
  const ratios = report.scenarios.map((s) => [
    s.name,
    ratio(s.p50Ratio),
    ratio(s.throughputRatio),
    s.floorItemsRead,
  ]);
  return [
    `HTTP: ${LOAD.connections} keep-alive connections, ${LOAD.warmupSeconds} s warm-up, then ${LOAD.durationSeconds} s measured per side ` +
      `in ${LOAD.sliceSeconds} s slices alternating stack and floor; loopback only`,
    processModel,
    '',
    table(['scenario', 'side', 'requests/s', 'p50 ms', 'p99 ms', 'errors'], rows),
    '',
    table(['scenario', 'p50 stack/floor', 'throughput stack/floor', 'items read per request'], ratios),
    ...(report.unmeasuredRoutes.length > 0
      ? ['', `Not measured (no scenario in test/bench/scenarios.ts): ${report.unmeasuredRoutes.join(', ')}`]
      : []),
  ].join('\n');
}

export function bundleSection(report: BundleReport): string {
  const rows: Cell[][] = report.functions.map((f) => [
    f.functionName,
    f.kib.toFixed(1),
    f.sizeOk ? 'OK' : 'OVER',
    f.initMs === null ? 'IMPORT FAILED' : ms(f.initMs),
    f.initMs === null ? '' : f.initOk ? 'OK' : 'OVER',
    f.initMs === null ? '' : ms(f.initMs - report.emptyModuleInitMs),
  ]);
  for (const failure of report.failures.filter((f) => f.step === 'bundle')) {
    rows.push([failure.functionName, 'BUNDLE FAILED', '', '', '', '']);
  }
  rows.push(['(empty module)', '-', '', ms(report.emptyModuleInitMs), '', '-']);

  // Bundles look alike: the breakdown of the largest and of any over the size target says enough.
  const bySize = [...report.functions].sort((a, b) => b.kib - a.kib);
  const explained = bySize.filter((f, i) => i === 0 || !f.sizeOk);
  const breakdown = explained.map(
    (f) => `  ${f.functionName}: ${f.largestPackages.map((p) => `${p.name} ${p.kib.toFixed(1)}`).join(', ')}`,
  );
  const maps = report.sourceMapCost;
  return [
    "Bundles: esbuild with infra/cdk/bundling.ts's options; size excludes the source map (1 KB = 1024 bytes).",
    `Init: median over ${INIT_RUNS} fresh \`node\` processes of performance.now() around \`await import()\` of`,
    'the bundle, with NODE_OPTIONS=--enable-source-maps and the environment infra/cdk/stack.ts sets, as deployed.',
    '',
    table(
      [
        'function',
        'size KB',
        `< ${BUNDLE_TARGETS.maxKiB} KB`,
        'init ms',
        `< ${BUNDLE_TARGETS.maxInitMs} ms`,
        'init ms minus empty module',
      ],
      rows,
    ),
    ...(maps
      ? [
          '',
          `Source maps: ${maps.functionName} (the largest bundle) imports in ${ms(maps.withMs)} ms with ` +
            `--enable-source-maps and ${ms(maps.withoutMs)} ms without.`,
        ]
      : []),
    '',
    'Largest contributors (KB of minified output, from the esbuild metafile; all bundles in results.json):',
    ...breakdown,
  ].join('\n');
}

const spreadRow = (label: string, spread: Spread | null): Cell[] =>
  spread ? [label, ms(spread.p50Ms), ms(spread.p99Ms), ms(spread.maxMs)] : [label, '-', '-', '-'];

const deliveryRow = (side: string, run: DeliveryRun): Cell[] => [
  side,
  whole(run.events),
  whole(run.received),
  whole(run.deliveriesPerSecond),
  run.flowingSeconds.toFixed(2),
];

export function webhookSection(report: WebhookReport): string {
  const { latency, throughput } = report;
  const { stack, floor } = throughput;
  const verdict = (ok: boolean, target: number, value: number) =>
    `< ${target} ms: ${ok ? 'OK' : 'MISSED'} (${ms(value)} ms)`;
  const events = WEBHOOK_LOAD.throughputEvents.toLocaleString('en');
  const backlogReading =
    stack.maxQueueBacklog <= WEBHOOK_LOAD.floorBatchSize
      ? 'the delivery worker kept up, so the stream poller and relay set the pace'
      : 'messages queued up behind the delivery worker';
  return [
    'Webhooks (issue 4): a bare node:http sink on 127.0.0.1 in the bench process answers 200 as soon as a body has',
    'arrived, then checks its Standard Webhooks signature; each run has its own enterprise organisation and endpoint',
    '(`mis webhook add --events incident.declared`). Times at the sink are taken when the whole body has arrived.',
    'The sink and the API client share the bench process; the stack and the floor each run in their own process.',
    '',
    `Latency: ${WEBHOOK_LOAD.latencyIncidents} incidents declared through POST /incidents at ${WEBHOOK_LOAD.incidentsPerSecond} per second (open loop),`,
    `after ${WEBHOOK_LOAD.warmupIncidents} one at a time for warm-up. "Commit" is the arrival of the 201: the transaction had committed`,
    "before the gateway sent it, so this slightly understates the time since the commit (by the response's trip).",
    '',
    table(
      ['measured', 'p50 ms', 'p99 ms', 'max ms'],
      [
        spreadRow('commit (201 arrived) -> webhook received', latency.fromCommit),
        spreadRow('POST /incidents sent -> webhook received', latency.fromRequestStart),
        spreadRow('POST /incidents alone (sent -> 201)', latency.apiResponse),
        spreadRow('  201 -> delivery attempt starts', latency.toAttemptStart),
        spreadRow('  attempt starts -> webhook received', latency.attemptToReceipt),
      ],
    ),
    '',
    'The split comes from the delivery log (`at`: when the delivery function began with the message): before it,',
    'the stream poll, relay, local bus, delivery queue and receive; after it, the endpoint read, secret decryption,',
    'signing, the POST on a fresh connection, and the sink reading the body.',
    `Targets: p50 ${verdict(latency.p50Ok, WEBHOOK_TARGETS.p50Ms, latency.fromCommit.p50Ms)}, ` +
      `p99 ${verdict(latency.p99Ok, WEBHOOK_TARGETS.p99Ms, latency.fromCommit.p99Ms)}; ` +
      `${latency.declared} declared, ${latency.received} received, ${latency.apiErrors} API errors.`,
    '',
    `Throughput: ${events} incident.declared events to one endpoint per side and round; deliveries/s from the first receipt to the last.`,
    '  stack: outbox items written straight to the table (the items POST /incidents commits, 25 per BatchWriteItem,',
    "         8 requests at a time) so that the API's write rate does not pace it; delivered by the stream poller,",
    `         relay, local bus, delivery queue and delivery worker (${WEBHOOK_LOAD.floorReceivers} receivers, batches of ${WEBHOOK_LOAD.floorBatchSize}).`,
    "  floor: its own fauxqs (startLocalSqs, SQLite-backed like the stack's) in its own process: all messages sent first,",
    `         then ${WEBHOOK_LOAD.floorReceivers} receivers take batches of ${WEBHOOK_LOAD.floorBatchSize}, sign each body with webhookHeaders, POST it with`,
    "         sendWebhook (a fresh connection each, as deployed), write the batch's delivery-log items in one",
    '         BatchWriteItem on the same DynamoDB Local, and delete each batch; no stream, relay or endpoint read.',
    '',
    table(
      ['side', 'events', 'received', 'deliveries/s', 'first to last receipt s'],
      [deliveryRow('stack', stack), deliveryRow('floor', floor)],
    ),
    '',
    `Deliveries/s stack/floor: ${ratio(throughput.ratio)}, the median of ${throughput.rounds.length} rounds (each the stack, then the floor at once after it; the table shows the median round):`,
    `  ${throughput.rounds.map((r, i) => `round ${i + 1} ${ratio(r.ratio)} (${whole(r.stack)}/${whole(r.floor)})`).join(', ')}`,
    `Stack: outbox items written in ${stack.seedSeconds.toFixed(2)} s; the first webhook arrived ` +
      `${whole(stack.firstCommitToFirstReceiptMs)} ms after the first commit,`,
    `       the ${events}th ${stack.firstCommitToLastReceiptSeconds.toFixed(2)} s after it. At most ` +
      `${stack.maxQueueBacklog} messages waited in the delivery queue`,
    `       (sampled every 200 ms): ${backlogReading}.`,
    `Floor: ${events} messages sent in ${floor.sendSeconds.toFixed(2)} s before any receive; first receive to last ` +
      `delete ${floor.deliverSeconds.toFixed(2)} s.`,
    ...(report.sink.duplicates > 0
      ? [`The sink received ${report.sink.duplicates} webhooks twice (at-least-once delivery).`]
      : []),
    '',
    cutoffSection(report.cutoffs),
  ].join('\n');
}

/** How long the waits take whose order the tests check (the alarm comes after 60 h, the sender hangs up). */
function cutoffSection({ alarms, timeoutOvershoot, endlessAnswer }: CutoffFigures): string {
  return [
    `Cut-offs: ${alarms.received} of ${alarms.declared} deadline alarms, due one after another over a timer interval ` +
      `(timers run every ${alarms.timerIntervalSeconds} s locally, every minute on AWS);`,
    `sendWebhook against a node:http server in the bench process, ${WEBHOOK_LOAD.cutoffRuns} times each.`,
    '',
    table(
      ['measured', 'p50 ms', 'p99 ms', 'max ms'],
      [
        spreadRow('incident 60 h after detection -> deadline alarm received', alarms.late),
        spreadRow(
          `silent subscriber: given up after the ${DELIVERY_TIMEOUT_MS / 1000} s deadline by`,
          timeoutOvershoot,
        ),
        spreadRow('never-ending 64 KB answer: settled on the excerpt after', endlessAnswer),
      ],
    ),
  ].join('\n');
}
