import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is untyped JSON, walked key by key.
export type Json = Record<string, any>;

/** The committed OpenAPI document (docs/openapi.json), as the tests read it. */
export const openApiDocument = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'),
) as Json;

/** Follows a local `$ref` (`#/components/…`) to what it names; any other node is returned as it is. */
export function resolveRef(node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  return resolveRef(
    node.$ref
      .slice(2)
      .split('/')
      .reduce((at: Json, key: string) => at?.[key], openApiDocument),
  );
}
