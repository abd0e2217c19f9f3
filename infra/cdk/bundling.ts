import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/**
 * The one set of esbuild settings for a Lambda bundle. The CDK construct derives its bundling props
 * from these constants and the benchmark bundles with `esbuildOptions`, so a measured bundle is the
 * deployed bundle.
 */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The Lambda runtime's Node major version. */
export const NODE_TARGET = 'node22';

/** The AWS SDK's ES module builds tree-shake; its CommonJS builds do not (see FACTS.md). */
export const MAIN_FIELDS: readonly string[] = ['module', 'main'];

/**
 * CommonJS dependencies bundled into an ES module still call `require` for Node built-ins; ESM has
 * no `require`, so one is created from the bundle's own URL. The alias avoids a clash with bundled code.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as topLevelCreateRequire } from 'node:module'; const require = topLevelCreateRequire(import.meta.url);";

/** Lambda bundles take credentials from the environment only (see shared/topology/lambda-credentials.ts). */
export const LAMBDA_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': './shared/topology/lambda-credentials.ts',
};

/** `functions/<name>/handler.ts`, absolute. */
export function functionEntry(functionName: string): string {
  return join(PROJECT_ROOT, 'functions', functionName, 'handler.ts');
}

/**
 * The AWS SDK is bundled, not taken from the runtime: a tree-shaken copy imports faster than the
 * runtime's many files (FACTS.md), and the version is the one the tests ran against.
 */
export function esbuildOptions(entry: string): BuildOptions {
  return {
    entryPoints: [entry],
    // CDK runs esbuild from the project root; paths in the source map are relative to it.
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: NODE_TARGET,
    minify: true,
    sourcemap: true,
    mainFields: [...MAIN_FIELDS],
    banner: { js: ESM_REQUIRE_BANNER },
    alias: { ...LAMBDA_ALIASES },
    external: [],
  };
}
