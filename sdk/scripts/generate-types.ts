import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const sdkRoot = join(import.meta.dirname, '..');

/** The OpenAPI document the service serves at /openapi.json, as committed. */
export const DOCUMENT_FILE = join(sdkRoot, '..', 'docs', 'openapi.json');

/** The committed types: generated, never edited by hand. */
export const TYPES_FILE = join(sdkRoot, 'src', 'generated', 'openapi.ts');

/** The types openapi-typescript derives from the document today (paths, webhooks, components). */
export async function generateTypes(documentFile = DOCUMENT_FILE): Promise<string> {
  const document = JSON.parse(readFileSync(documentFile, 'utf8'));
  // No redocly config: the root redocly.yaml holds lint rules for the document, not generation settings.
  // defaultNonNullable off: a request field with a default (e.g. an event's `public`) may be left out.
  const ast = await openapiTS(document, { redocly: undefined, defaultNonNullable: false });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}

// `npm run sdk:generate` writes them (after `npm run openapi`); test/unit/sdk-generated-types.test.ts
// fails when the committed file differs from what the document gives.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(TYPES_FILE, await generateTypes());
  console.log(`wrote ${TYPES_FILE}`);
}
