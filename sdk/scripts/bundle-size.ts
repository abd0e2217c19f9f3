import { join } from 'node:path';
import { build } from 'esbuild';

/** The target for the built client, minified, without types. */
export const BUNDLE_LIMIT_BYTES = 15 * 1024;

/**
 * What an integrator's bundler ships for the SDK: its entry with everything it imports (openapi-fetch
 * included), minified ESM for Node (`node:crypto` stays Node's own).
 */
export async function sdkBundleBytes(): Promise<{ bytes: number; what: string }> {
  const result = await build({
    entryPoints: [join(import.meta.dirname, '..', 'src', 'index.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles.reduce((sum, file) => sum + file.contents.length, 0);
  return { bytes, what: 'minified ESM, openapi-fetch included, types excluded' };
}
