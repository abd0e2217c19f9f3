import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  DomainError,
  type FieldIssue,
  InsufficientScopeError,
  RateLimitedError,
  ValidationError,
} from '../domain/errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9457 problem details, plus the stable machine-readable `code` that clients branch on. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldIssue[];
}

export const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  431: 'Request Header Fields Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function problemTypeFor(code: string): string {
  return `urn:problem:${code}`;
}

export function problem(status: number, code: string, detail: string, errors?: FieldIssue[]): Problem {
  return {
    type: problemTypeFor(code),
    title: STATUS_TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors ? { errors } : {}),
  };
}

export function problemResponse(body: Problem, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: body.status,
    headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

export const WWW_AUTHENTICATE_BEARER = 'Bearer realm="api"';

const STATUS_BY_CODE: Record<string, number> = {
  unauthorized: 401,
  insufficient_scope: 403,
  not_found: 404,
  no_report: 404,
  validation_failed: 400,
  malformed_json: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  conflict: 409,
  invalid_transition: 409,
  idempotency_conflict: 409,
  incident_closed: 409,
  not_notified: 409,
  precondition_failed: 412,
  delay_reason_required: 400,
  rate_limited: 429,
};

/** Seconds a client is told to wait when the table cannot be reached. */
export const STORAGE_RETRY_AFTER_SECONDS = 2;

/** Connection failures and the database's own "try again" answers: nothing was written. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'TimeoutError',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
]);

/** True when the error says a dependency could not be reached, however the SDK wrapped it. */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, name, cause, errors } = error as {
    code?: unknown;
    name?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (UNAVAILABLE_CODES.has(String(code)) || UNAVAILABLE_CODES.has(String(name))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDependencyUnavailable(inner, depth + 1))) return true;
  return isDependencyUnavailable(cause, depth + 1);
}

export function serviceUnavailableResponse(): APIGatewayProxyResult {
  return problemResponse(
    problem(
      503,
      'service_unavailable',
      'The service is briefly unavailable. Retry shortly (a POST with the same Idempotency-Key).',
    ),
    { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) },
  );
}

/** The one mapping from domain failures to HTTP. Anything unexpected is a generic 500. */
export function problemForError(error: unknown): APIGatewayProxyResult {
  if (isDependencyUnavailable(error)) return serviceUnavailableResponse();
  if (!(error instanceof DomainError)) {
    return problemResponse(
      problem(500, 'internal_error', 'An unexpected error occurred. Please try again later.'),
    );
  }
  const status = STATUS_BY_CODE[error.code] ?? 400;
  const headers: Record<string, string> = {};
  if (status === 401) headers['WWW-Authenticate'] = WWW_AUTHENTICATE_BEARER;
  if (error instanceof InsufficientScopeError) {
    headers['WWW-Authenticate'] = `Bearer error="insufficient_scope", scope="${error.requiredScope}"`;
  }
  if (error instanceof RateLimitedError) headers['Retry-After'] = String(error.retryAfterSeconds);
  const issues = error instanceof ValidationError ? error.issues : undefined;
  return problemResponse(problem(status, error.code, error.message, issues), headers);
}
