import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod/mini';
import { DomainError, type FieldIssue, ValidationError } from '../domain/errors.js';
import { isUnsafeText, TEXT_RULE } from '../domain/text.js';
import '../schemas/messages.js';

/** Bodies are small records; anything bigger is refused before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

export class PayloadTooLargeError extends DomainError {
  constructor() {
    super('payload_too_large', `The request body must be at most ${MAX_BODY_BYTES / 1024} KB.`);
  }
}

export class MalformedJsonError extends DomainError {
  constructor(message = 'The request body is not valid JSON.') {
    super('malformed_json', message);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor() {
    super('unsupported_media_type', 'Send the request body as application/json (UTF-8).');
  }
}

export function fieldIssues(error: z.core.$ZodError, location?: 'query'): FieldIssue[] {
  const name = (path: string) => `${location ?? ''}${path}`.replace(/^\./, '') || '(body)';
  return error.issues.flatMap((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    // One issue per unknown key, so that each is named on its own like any other offending field.
    if (issue.code === 'unrecognized_keys') {
      const message = location
        ? 'Unknown query parameter.'
        : 'Unknown field; nothing else is accepted or stored.';
      return issue.keys.map((key) => ({ field: name(`${path}.${key}`), message }));
    }
    return [{ field: name(path), message: issue.message }];
  });
}

function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** `application/json` or a `+json` type, in UTF-8 (JSON's only encoding between systems, RFC 8259). */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) return false;
  const charset = CHARSET.exec(contentType)?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset);
}

/** The body as text; bytes that were not UTF-8 have become U+FFFD by now, which the text rule refuses. */
function bodyText(event: APIGatewayProxyEvent): string {
  if (event.body === null) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** Every string of a parsed body or query, keys included, that breaks the text rule, named by its path. */
function unsafeTextIssues(value: unknown, path: string, location?: 'query'): FieldIssue[] {
  const field = () => `${location ? `${location}.` : ''}${path.replace(/^\./, '')}` || '(body)';
  if (typeof value === 'string') return isUnsafeText(value) ? [{ field: field(), message: TEXT_RULE }] : [];
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => unsafeTextIssues(item, `${path}[${i}]`, location));
  }
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) =>
    isUnsafeText(key)
      ? [{ field: field(), message: `A field name breaks the rule: ${TEXT_RULE}` }]
      : unsafeTextIssues(item, `${path}.${key}`, location),
  );
}

/**
 * The JSON body checked against its schema: 413, 415, 400 malformed or 400 naming every offending
 * field. No body at all is an empty object, so an operation whose fields are all optional takes a
 * bare `POST`; a body needs `Content-Type: application/json`.
 */
export function parseJsonBody<T>(event: APIGatewayProxyEvent, schema: z.ZodMiniType<T>): T {
  const raw = bodyText(event);
  if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) throw new PayloadTooLargeError();
  if (raw !== '' && !isJsonMediaType(header(event, 'content-type'))) throw new UnsupportedMediaTypeError();
  let json: unknown;
  try {
    json = raw === '' ? {} : JSON.parse(raw);
  } catch {
    throw new MalformedJsonError();
  }
  const unsafe = unsafeTextIssues(json, '');
  if (unsafe.length > 0) throw new ValidationError(unsafe);
  const result = schema.safeParse(json);
  if (!result.success) throw new ValidationError(fieldIssues(result.error));
  return result.data;
}

/** Query parameters checked against their schema; unknown parameters are refused like unknown fields. */
export function parseQuery<T>(event: APIGatewayProxyEvent, schema: z.ZodMiniType<T>): T {
  const query = event.queryStringParameters ?? {};
  const unsafe = unsafeTextIssues(query, '', 'query');
  if (unsafe.length > 0) throw new ValidationError(unsafe);
  const result = schema.safeParse(query);
  if (!result.success) throw new ValidationError(fieldIssues(result.error, 'query'));
  return result.data;
}

/**
 * The body as its parsed JSON, written one way (keys sorted, no white space): two requests that
 * differ only in spacing or key order are the same request. A body that is not JSON stays as sent.
 */
export function canonicalBody(event: APIGatewayProxyEvent): string {
  const raw = bodyText(event);
  if (raw.trim() === '') return '{}';
  try {
    return canonicalJson(JSON.parse(raw));
  } catch {
    return raw;
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export { header as requestHeader };
