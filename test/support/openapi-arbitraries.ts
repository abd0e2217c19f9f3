import fc from 'fast-check';
import { type Json, openApiDocument, resolveRef } from './openapi-document.js';

/**
 * fast-check arbitraries built from the committed OpenAPI document: for each operation, requests
 * that mostly fit its schemas (so that they get past validation and reach the code behind it) and
 * sometimes do not, in the ways clients get it wrong: other types, numbers at and beyond their
 * bounds, text no store should keep, unknown fields and query parameters named like an object's
 * members, bodies that are not JSON or not UTF-8, other media types, no or a lesser token.
 */

/** Names a client may send that once reached a plain object's prototype. */
export const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];

/** Text a store should never keep, and text at the edges of what is fine. */
const awkwardText = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\ufffd',
  '🌻',
  '  padded  ',
  'x'.repeat(3000),
  '<script>alert(1)</script>',
  '%s%n{{7*7}}',
  "'; DROP TABLE x; --",
);

/** Numbers at and beyond what JSON and DynamoDB take. */
const awkwardNumber = fc.constantFrom(
  0,
  -0,
  1e300,
  -1e300,
  5e-324,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  0.1 + 0.2,
  1e-7,
  123456.1234567,
);

function decimalsOf(step: number): number {
  const [, fraction = ''] = String(step).split('.');
  const exponent = /e-(\d+)$/.exec(String(step))?.[1];
  return exponent ? Number(exponent) : fraction.length;
}

/** A value that fits the schema (as far as a schema can say: cross-field rules may still refuse it). */
export function validValue(node: Json): fc.Arbitrary<unknown> {
  const schema = resolveRef(node);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options)) return fc.oneof(...options.map((option: Json) => validValue(option)));
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  return fc.oneof(...types.map((type) => validOfType(schema, type)));
}

function validOfType(schema: Json, type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      if (schema.minimum === undefined && schema.maximum === undefined) {
        return fc.oneof(fc.integer(), fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1e300));
      }
      const min = schema.minimum ?? (schema.exclusiveMinimum ?? -1e6 - 1) + 1;
      const max = schema.maximum ?? (schema.exclusiveMaximum ?? 1e6 + 1) - 1;
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case 'number': {
      const step: number = schema.multipleOf ?? 0.001;
      const places = decimalsOf(step);
      const low = schema.minimum ?? schema.exclusiveMinimum ?? -1e9;
      const high = schema.maximum ?? schema.exclusiveMaximum ?? 1e9;
      const lowSteps = Math.ceil(low / step) + (schema.exclusiveMinimum !== undefined ? 1 : 0);
      const highSteps = Math.floor(high / step) - (schema.exclusiveMaximum !== undefined ? 1 : 0);
      const toNumber = (steps: number) => Number((steps * step).toFixed(places));
      // A number the document leaves unbounded may be any JSON number: the extremes included.
      if (schema.minimum === undefined && schema.maximum === undefined) {
        return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), awkwardNumber);
      }
      // Steps beyond 2^53 are not exact: pick the bounds themselves or a modest figure instead.
      const safeLow = Math.max(lowSteps, -1e12);
      const safeHigh = Math.min(highSteps, 1e12);
      return fc.oneof(
        fc.integer({ min: safeLow, max: safeHigh }).map(toNumber),
        fc.constantFrom(toNumber(safeLow), toNumber(safeHigh), ...(high <= 2 ** 53 ? [high] : [])),
      );
    }
    case 'string':
      return validString(schema);
    case 'array': {
      const items = validValue(schema.items ?? {});
      return fc.array(items, {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    }
    default:
      return validObject(schema);
  }
}

function validString(schema: Json): fc.Arbitrary<string> {
  const iso = fc
    .date({
      min: new Date('2020-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString());
  switch (schema.format) {
    case 'date-time':
      return fc.oneof(
        iso,
        fc.constant(new Date().toISOString()),
        iso.map((s) => s.replace('Z', '+02:00')),
      );
    case 'date':
      return iso.map((s) => s.slice(0, 10));
    case 'uuid':
      return fc.uuid();
    case 'uri':
      return fc.webUrl();
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  return fc.string({ minLength, maxLength, unit: fc.constantFrom('a', 'b', 'Z', '0', '-', ' ', 'é', '🌻') });
}

function validObject(schema: Json): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries<Json>(schema.properties ?? {});
  const model = Object.fromEntries(properties.map(([name, property]) => [name, validValue(property)]));
  return fc.record(model, { requiredKeys: schema.required ?? [] });
}

/** `value` with one of its leaves, at any depth (`metrics[2].value`), replaced by `replacement`. */
function replaceLeaf(value: unknown, index: number, replacement: unknown): unknown {
  const copy = structuredClone(value);
  const leaves: [Json, string | number][] = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      if (child !== null && typeof child === 'object') walk(child);
      else leaves.push([node as Json, Array.isArray(node) ? Number(key) : key]);
    }
  };
  walk(copy);
  const leaf = leaves[index % Math.max(1, leaves.length)];
  if (!leaf) return replacement;
  const [parent, key] = leaf;
  parent[key] = replacement;
  return copy;
}

/** A value that may or may not fit: mostly fitting, sometimes off in one of the usual ways. */
export function anyValue(node: Json): fc.Arbitrary<unknown> {
  const schema = resolveRef(node);
  const properties = Object.keys(schema.properties ?? {});
  const broken: fc.Arbitrary<unknown>[] = [awkwardText, awkwardNumber, fc.jsonValue({ maxDepth: 2 })];
  if (properties.length > 0) {
    // One field off, or an unknown one named like an object member.
    broken.push(
      fc
        .tuple(validObject(schema), fc.nat(), fc.oneof(awkwardText, awkwardNumber, fc.jsonValue()))
        .map(([value, leaf, wrong]) => replaceLeaf(value, leaf, wrong)),
      fc
        .tuple(
          validObject(schema),
          fc.constantFrom(...PROTOTYPE_NAMES, 'unknown'),
          fc.jsonValue({ maxDepth: 1 }),
        )
        .map(([value, name, extra]) =>
          Object.defineProperty({ ...value }, name, { value: extra, enumerable: true }),
        ),
    );
  }
  return fc.oneof(
    { weight: 2 * broken.length, arbitrary: validValue(schema) },
    ...broken.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
}

export interface FuzzRequest {
  method: string;
  /** The path under the base URL, with the query. */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Which token goes with it: the one for its operation, a read-only one, or none. */
  auth: 'writer' | 'reader' | 'none';
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Bodies as bytes: JSON of the value, or bytes a JSON parser or UTF-8 decoder refuses. */
function bodyBytes(schema: Json): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    { weight: 12, arbitrary: anyValue(schema).map((value) => utf8(JSON.stringify(value) ?? 'null')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        utf8('{"a":'),
        utf8('not json'),
        utf8(''),
        new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        utf8('{"__proto__":{"polluted":true}}'),
        utf8(`{"a":"${'x'.repeat(70 * 1024)}"}`),
      ),
    },
  );
}

/** Requests for one operation of the document; `ids` are resources that exist, for `{id}`. */
export function requestsFor(
  method: string,
  path: string,
  operation: Json,
  ids: readonly string[],
): fc.Arbitrary<FuzzRequest> {
  const parameters = (operation.parameters ?? []).map(resolveRef) as Json[];
  const queryParameters = parameters.filter((p) => p.in === 'query');
  const id = fc.oneof(
    ...(ids.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...ids) }] : []),
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent) },
  );
  const query = fc
    .tuple(
      fc.record(
        Object.fromEntries(
          queryParameters.map((p) => [
            p.name,
            fc.oneof(
              { weight: 5, arbitrary: validValue(p.schema).map(String) },
              { weight: 1, arbitrary: awkwardText },
            ),
          ]),
        ),
        { requiredKeys: [] },
      ),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES, 'unknown') },
      ),
    )
    .map(([values, extra]) => {
      const search = new URLSearchParams(values as Record<string, string>);
      if (extra) search.set(extra, '1');
      return search.size > 0 ? `?${search}` : '';
    });
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  const body = schema
    ? fc.option(bodyBytes(schema), { freq: 10, nil: undefined })
    : fc.constant<Uint8Array | undefined>(undefined);
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', undefined) },
  );
  const auth = fc.oneof(
    { weight: 8, arbitrary: fc.constant<FuzzRequest['auth']>('writer') },
    { weight: 1, arbitrary: fc.constantFrom<FuzzRequest['auth']>('reader', 'none') },
  );
  const conditional = fc.option(fc.constantFrom('"x"', '*', 'W/"a", "b"'), { freq: 5 });
  return fc
    .record({
      id,
      query,
      body,
      contentType,
      auth,
      conditional,
      idempotencyKey: fc.option(fc.uuid(), { freq: 3 }),
    })
    .map(({ id, query, body, contentType, auth, conditional, idempotencyKey }) => ({
      method: method.toUpperCase(),
      path: `${path.replace('{id}', id)}${query}`,
      headers: {
        ...(body !== undefined && contentType !== undefined ? { 'Content-Type': contentType } : {}),
        ...(conditional && method === 'get' ? { 'If-None-Match': conditional } : {}),
        ...(idempotencyKey && method === 'post' ? { 'Idempotency-Key': idempotencyKey } : {}),
      },
      ...(body !== undefined ? { body } : {}),
      auth,
    }));
}

/** Every operation of the document: `[method, path, operation]`. */
export function documentOperations(): [string, string, Json][] {
  return Object.entries<Json>(openApiDocument.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, operation]): [string, string, Json] => [
      method,
      path,
      operation,
    ]),
  );
}
