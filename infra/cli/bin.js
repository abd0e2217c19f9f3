#!/usr/bin/env node
// The operator CLI is TypeScript like the rest of the service. Loaded through tsx, every call
// compiled and resolved some 300 modules through tsx's hooks (2 to 5 s a call); instead it runs as
// one bundle that esbuild makes at the first call and again whenever a file it is made of has
// changed (a second or two, once), so that a call takes a few tenths of a second. tsx stays the
// fallback.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..', '..');
const entry = join(import.meta.dirname, 'mis.ts');
// One folder per checkout: node_modules may be shared (a symlink) by checkouts of other versions.
const cache = join(
  root,
  'node_modules',
  '.cache',
  'mis',
  createHash('sha256').update(root).digest('hex').slice(0, 12),
);
const bundle = join(cache, 'mis.mjs');
const manifest = join(cache, 'inputs.json');
// Dependencies change only through npm, which rewrites this file: their own files need no check.
const ALWAYS_CHECKED = [
  'node_modules/.package-lock.json',
  'package.json',
  'tsconfig.json',
  'infra/cli/bin.js',
];

const mtimeOf = (file) => {
  try {
    return statSync(join(root, file)).mtimeMs;
  } catch {
    return null;
  }
};

function isFresh() {
  try {
    const inputs = JSON.parse(readFileSync(manifest, 'utf8'));
    return Object.entries(inputs).every(([file, mtime]) => mtimeOf(file) === mtime);
  } catch {
    return false;
  }
}

/** Writes `contents` to `file` in one step, as calls running at the same time may build too. */
function writeAtomically(file, contents) {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, contents);
  renameSync(partial, file);
}

async function build() {
  const esbuild = await import('esbuild');
  const started = Date.now();
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    minify: true,
    keepNames: true,
    metafile: true,
    write: false,
    logLevel: 'silent',
    // For the CommonJS inside some dependencies.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  const sources = Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/'));
  const inputs = Object.fromEntries(
    [...sources, ...ALWAYS_CHECKED].map((file) => {
      const mtime = mtimeOf(file);
      // Changed while esbuild read it: this bundle may hold either version, so the next call rebuilds.
      return [relative(root, resolve(root, file)), mtime !== null && mtime > started ? -1 : mtime];
    }),
  );
  mkdirSync(cache, { recursive: true });
  writeAtomically(bundle, result.outputFiles[0].contents);
  writeAtomically(manifest, JSON.stringify(inputs));
}

let bundled = false;
try {
  if (!isFresh()) await build();
  bundled = true;
} catch {
  // No esbuild or no writable node_modules: run the sources through tsx, as slow as before.
}
if (bundled) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./mis.ts');
}
