import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, functionEntry, PROJECT_ROOT } from '../../infra/cdk/bundling.js';
import { onCleanup } from './cleanup.js';
import { BUNDLE_TARGETS, INIT_RUNS } from './settings.js';

export interface PackageShare {
  name: string;
  kib: number;
}

export interface BundleFigures {
  functionName: string;
  kib: number;
  /** Median import time as deployed; null when the bundle could not be imported (see failures). */
  initMs: number | null;
  /** Largest contributors to the minified output, from esbuild's metafile. */
  largestPackages: PackageShare[];
  sizeOk: boolean;
  initOk: boolean;
}

export interface BundleReport {
  emptyModuleInitMs: number;
  functions: BundleFigures[];
  /** The largest bundle imported once more without source maps: what NODE_OPTIONS=--enable-source-maps costs. */
  sourceMapCost: { functionName: string; withMs: number; withoutMs: number } | null;
  /** Bundles that esbuild could not build or node could not import: failed measurements, not missed targets. */
  failures: { functionName: string; step: 'bundle' | 'import'; error: string }[];
}

/**
 * Every function folder: the authorizer and the route handlers first, in the route table's order,
 * then the functions that no route calls (stream, queue and schedule consumers).
 */
export function functionFolders(first: string[]): string[] {
  const folders = readdirSync(join(PROJECT_ROOT, 'functions'))
    .filter((name) => existsSync(functionEntry(name)))
    .sort();
  return [...new Set([...first, ...folders])];
}

const run = promisify(execFile);

/** Runs in each fresh process: the time to import and evaluate the module, and nothing else. */
const IMPORT_PROBE =
  'const t = performance.now(); await import(process.argv[1]); ' +
  'process.stdout.write(JSON.stringify({ ms: performance.now() - t }));';

/**
 * What Lambda and infra/cdk/stack.ts give a function at init, with placeholder values: a module that
 * reads its configuration at load (fail fast) finds it. A variable missing here makes that
 * function's import fail with its own message, reported as a failed measurement.
 */
function lambdaEnvironment(functionName: string, sourceMaps: boolean): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'eu-west-1',
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    TABLE_NAME: 'membership-incident-service',
    TOKEN_TAG: 'svc',
    SERVICE_NAME: 'service',
    POWERTOOLS_SERVICE_NAME: 'membership-incident-service',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    EVENT_BUS_NAME: 'membership-incident-service',
    DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-delivery',
    SECRETS_KMS_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/00000000-0000-0000-0000-000000000000',
    ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
  };
}

/** Asynchronous, so that Ctrl-C is handled between two imports rather than after all of them. */
async function timeImport(file: string, functionName: string, sourceMaps: boolean): Promise<number> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', IMPORT_PROBE, pathToFileURL(file).href],
      { env: lambdaEnvironment(functionName, sourceMaps), timeout: 30_000 },
    );
    return (JSON.parse(stdout) as { ms: number }).ms;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`Importing the ${functionName} bundle failed:\n${stderr}`);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** `node_modules/@aws-sdk/client-dynamodb/dist-es/…` → `@aws-sdk/client-dynamodb`; our own files → one entry. */
function packageOf(inputPath: string): string {
  const marker = 'node_modules/';
  const at = inputPath.lastIndexOf(marker);
  if (at === -1) return '(service code)';
  const [first = '', second = ''] = inputPath.slice(at + marker.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

function largestPackages(inputs: Metafile['outputs'][string]['inputs'], count = 5): PackageShare[] {
  const bytes = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const name = packageOf(path);
    bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
  }
  return [...bytes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, size]) => ({ name, kib: size / 1024 }));
}

interface Bundle {
  functionName: string;
  outfile: string;
  kib: number;
  largestPackages: PackageShare[];
}

async function bundleAll(functionNames: string[], dir: string, failures: BundleReport['failures']) {
  const built = await Promise.all(
    functionNames.map(async (functionName): Promise<Bundle | undefined> => {
      const outfile = join(dir, functionName, 'index.mjs');
      mkdirSync(join(dir, functionName));
      const options = esbuildOptions(functionEntry(functionName));
      try {
        const { metafile } = await build({ ...options, outfile, metafile: true, logLevel: 'silent' });
        // Metafile paths are relative to esbuild's working directory.
        const base = options.absWorkingDir ?? process.cwd();
        const output = Object.entries(metafile.outputs).find(
          ([path]) => resolve(base, path) === outfile,
        )?.[1];
        const kib = statSync(outfile).size / 1024;
        return { functionName, outfile, kib, largestPackages: largestPackages(output?.inputs ?? {}) };
      } catch (error) {
        const first = (error as { errors?: { text: string; location?: { file: string } | null }[] })
          .errors?.[0];
        const where = first?.location ? `${first.location.file}: ` : '';
        failures.push({
          functionName,
          step: 'bundle',
          error: first ? `${where}${first.text}` : String(error),
        });
        return undefined;
      }
    }),
  );
  return built.filter((bundle) => bundle !== undefined);
}

/**
 * Bundles each function with the deployed esbuild options, then times a cold import of each bundle
 * in fresh processes, one at a time and round-robin, so that a slow moment of the machine hits
 * every bundle alike.
 */
export async function benchBundles(functionNames: string[]): Promise<BundleReport> {
  const dir = mkdtempSync(join(tmpdir(), 'mis-bench-bundles-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const emptyFile = join(dir, 'empty.mjs');
  writeFileSync(emptyFile, 'export {};\n');
  const failures: BundleReport['failures'] = [];
  const bundles = await bundleAll(functionNames, dir, failures);
  const largest = [...bundles].sort((a, b) => b.kib - a.kib)[0];

  const probes = [
    { key: 'empty', functionName: '(empty module)', outfile: emptyFile, sourceMaps: true },
    ...bundles.map(({ functionName, outfile }) => ({
      key: functionName,
      functionName,
      outfile,
      sourceMaps: true,
    })),
    ...(largest
      ? [
          {
            key: 'without source maps',
            functionName: largest.functionName,
            outfile: largest.outfile,
            sourceMaps: false,
          },
        ]
      : []),
  ];
  const times = new Map(probes.map((probe) => [probe.key, [] as number[]]));
  let live = probes;
  for (let run = 0; run < INIT_RUNS; run++) {
    for (const probe of live) {
      try {
        times.get(probe.key)?.push(await timeImport(probe.outfile, probe.functionName, probe.sourceMaps));
      } catch (error) {
        // A bundle that cannot load fails on its first import; it is left out of the later runs.
        failures.push({ functionName: probe.functionName, step: 'import', error: (error as Error).message });
        live = live.filter((p) => p.outfile !== probe.outfile);
        for (const p of probes) if (p.outfile === probe.outfile) times.delete(p.key);
      }
    }
  }
  const medianOf = (key: string) => {
    const measured = times.get(key);
    return measured && measured.length > 0 ? median(measured) : null;
  };

  const emptyModuleInitMs = medianOf('empty');
  if (emptyModuleInitMs === null) throw new Error('Even an empty module could not be imported.');
  const withoutMs = medianOf('without source maps');
  const withMs = largest ? medianOf(largest.functionName) : null;
  return {
    emptyModuleInitMs,
    sourceMapCost:
      largest && withMs !== null && withoutMs !== null
        ? { functionName: largest.functionName, withMs, withoutMs }
        : null,
    failures,
    functions: bundles.map(({ functionName, kib, largestPackages }) => {
      const initMs = medianOf(functionName);
      return {
        functionName,
        kib,
        initMs,
        largestPackages,
        sizeOk: kib < BUNDLE_TARGETS.maxKiB,
        initOk: initMs !== null && initMs < BUNDLE_TARGETS.maxInitMs,
      };
    }),
  };
}
