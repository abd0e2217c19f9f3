import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../cdk/bundling.js';
import { buildOpenApiDocument } from './document.js';

/** Where the generated document is committed; the docs function bundles it. */
export const DOCUMENT_PATH = join(PROJECT_ROOT, 'docs', 'openapi.json');

export function renderDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument().document, null, 2)}\n`;
}

// `npm run openapi` writes it; `npm run openapi -- --check` fails when the committed file is stale.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rendered = renderDocument();
  if (process.argv.includes('--check')) {
    if (readFileSync(DOCUMENT_PATH, 'utf8') !== rendered) {
      console.error('docs/openapi.json is out of date: run npm run openapi');
      process.exit(1);
    }
  } else {
    writeFileSync(DOCUMENT_PATH, rendered);
    console.log(`wrote ${DOCUMENT_PATH}`);
  }
}
