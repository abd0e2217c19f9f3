import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUNDLE_LIMIT_BYTES, sdkBundleBytes } from '../../sdk/scripts/bundle-size.js';
import { DOCUMENT_FILE, generateTypes, TYPES_FILE } from '../../sdk/scripts/generate-types.js';

describe('the SDK package', () => {
  it('commits exactly the types openapi-typescript generates from docs/openapi.json (npm run sdk:generate)', async () => {
    const regenerated = await generateTypes(DOCUMENT_FILE);
    // Compared as a whole: any drift, however small, means the client no longer follows the document.
    expect(readFileSync(TYPES_FILE, 'utf8') === regenerated, 'run `npm run sdk:generate` and commit').toBe(
      true,
    );
  });

  it('bundles, minified and without types, under 15 KB', async () => {
    const { bytes } = await sdkBundleBytes();
    expect(bytes).toBeGreaterThan(1000);
    expect(bytes).toBeLessThan(BUNDLE_LIMIT_BYTES);
  });

  it('depends at run time on openapi-fetch only, pinned, and on nothing of the service', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../sdk/package.json', import.meta.url), 'utf8'));
    const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(manifest.dependencies).toEqual({ 'openapi-fetch': root.devDependencies['openapi-fetch'] });
    expect(manifest.type).toBe('module');
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
  });
});
