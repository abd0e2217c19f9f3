import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod/mini';
import { DomainError, type FieldIssue, ValidationError } from '../domain/errors.js';
import '../schemas/messages.js';

/** Bodies are small records; anything bigger is refused before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

export class PayloadTooLargeError extends DomainError {
  constructor() {
    super('payload_too_large', `The request body must be at most ${MAX_BODY_BYTES / 1024} KB.`);
  }
}

export class MalformedJsonError extends DomainError {
  constructor() {
    super('malformed_json', 'The request body is not valid JSON.');
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor() {
    super('unsupported_media_type', 'Send the request body as application/json.');
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

/** The JSON body checked against its schema: 415, 413, 400 malformed or 400 naming every offending field. */
export function parseJsonBody<T>(event: APIGatewayProxyEvent, schema: z.ZodMiniType<T>): T {
  const raw =
    event.body === null
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) throw new PayloadTooLargeError();
  const contentType = header(event, 'content-type');
  if (raw !== '' && contentType !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new UnsupportedMediaTypeError();
  }
  let json: unknown;
  try {
    json = raw === '' ? {} : JSON.parse(raw);
  } catch {
    throw new MalformedJsonError();
  }
  const result = schema.safeParse(json);
  if (!result.success) throw new ValidationError(fieldIssues(result.error));
  return result.data;
}

/** Query parameters checked against their schema; unknown parameters are refused like unknown fields. */
export function parseQuery<T>(event: APIGatewayProxyEvent, schema: z.ZodMiniType<T>): T {
  const result = schema.safeParse(event.queryStringParameters ?? {});
  if (!result.success) throw new ValidationError(fieldIssues(result.error, 'query'));
  return result.data;
}

export { header as requestHeader };
