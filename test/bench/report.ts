import type { BundleReport } from './bundle-bench.js';
import type { HttpReport } from './http-bench.js';
import { BUNDLE_TARGETS, INIT_RUNS, LOAD } from './settings.js';

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
    "Bundles: esbuild with infra/bundling.ts's options; size excludes the source map (1 KB = 1024 bytes).",
    `Init: median over ${INIT_RUNS} fresh \`node\` processes of performance.now() around \`await import()\` of`,
    'the bundle, with NODE_OPTIONS=--enable-source-maps and the environment infra/stack.ts sets, as deployed.',
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
