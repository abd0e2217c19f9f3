import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { matchPath } from '../../shared/topology/routes.js';
import { openApiDocument as document, type Json, resolveRef as resolve } from './openapi-document.js';

/**
 * Checks a response of the running service against the committed OpenAPI document: the operation
 * and status must be described, the described headers that are required must be present, and the
 * body must fit the schema for its content type. Unknown paths and wrong methods must be problems.
 */
// `multipleOf: 0.01` checked as decimals, not floats: 0.29 / 0.01 is 28.999999999999996.
const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 9 });
addFormats.default(ajv);
ajv.addSchema({ $id: 'openapi.json', components: document.components });
const compiled = new Map<string, ValidateFunction>();

function validatorFor(schema: Json): ValidateFunction {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
  let validate = compiled.get(text);
  if (!validate) {
    validate = ajv.compile(JSON.parse(text));
    compiled.set(text, validate);
  }
  return validate;
}

const PROBLEM = { $ref: '#/components/schemas/Problem' };

export class ContractViolation extends Error {}

export interface ObservedResponse {
  method: string;
  /** Path relative to the base URL, without the query. */
  path: string;
  status: number;
  headers: Headers;
  body: string;
}

function checkBody(where: string, contentType: string | null, body: string, content: Json | undefined): void {
  if (!content) {
    if (body !== '') throw new ContractViolation(`${where}: a body was sent where none is described`);
    return;
  }
  const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? '';
  const entry = content[mediaType];
  if (!entry) {
    throw new ContractViolation(
      `${where}: content type ${mediaType || '(none)'} is not one of ${Object.keys(content).join(', ')}`,
    );
  }
  if (!/json$/.test(mediaType)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ContractViolation(`${where}: the body is not JSON`);
  }
  const validate = validatorFor(entry.schema);
  if (!validate(parsed)) {
    throw new ContractViolation(
      `${where}: the body does not fit its schema: ${ajv.errorsText(validate.errors)}\n${body.slice(0, 500)}`,
    );
  }
}

export function checkResponse(observed: ObservedResponse): void {
  const where = `${observed.method} ${observed.path} → ${observed.status}`;
  const contentType = observed.headers.get('content-type');
  const template = Object.keys(document.paths).find((p) => matchPath(p, observed.path) !== undefined);
  // A preflight of a described path: 204, no body (the CORS headers are checked by the CORS tests).
  if (observed.method === 'OPTIONS' && template) {
    if (observed.status !== 204) throw new ContractViolation(`${where}: a preflight is answered 204`);
    checkBody(where, contentType, observed.body, undefined);
    return;
  }
  // HEAD is answered as the GET (described in the document's introduction), without a body.
  const head = observed.method === 'HEAD';
  const documented = head ? 'get' : observed.method.toLowerCase();
  const operation = template ? (document.paths[template] as Json)[documented] : undefined;
  if (!operation) {
    // Not an operation of the API: only "no such resource" or "no such method" may come back.
    if (observed.status !== 404 && observed.status !== 405) {
      throw new ContractViolation(`${where}: the document describes no such operation`);
    }
    checkBody(where, contentType, observed.body, { 'application/problem+json': { schema: PROBLEM } });
    return;
  }
  const status = String(observed.status);
  const described = operation.responses[status] ?? operation.responses[`${status[0]}XX`];
  if (!described)
    throw new ContractViolation(`${where}: the document describes no ${status} for this operation`);
  const response = resolve(described);
  for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
    if (resolve(header).required && !observed.headers.has(name)) {
      throw new ContractViolation(`${where}: required header ${name} is missing`);
    }
  }
  if (head) {
    if (observed.body !== '') throw new ContractViolation(`${where}: a HEAD answer has no body`);
    return;
  }
  checkBody(where, contentType, observed.body, response.content);
}
