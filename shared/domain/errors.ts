/**
 * Typed failures of the domain. They carry what a caller needs to know and nothing about HTTP:
 * `shared/http/problem.ts` is the one place that maps them to status codes.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string) {
    super('not_found', `${what} was not found.`);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, code = 'conflict') {
    super(code, message);
  }
}

export interface FieldIssue {
  field: string;
  message: string;
}

export class ValidationError extends DomainError {
  constructor(readonly issues: FieldIssue[]) {
    super('validation_failed', `Invalid request: ${issues.map((i) => i.field).join(', ')}.`);
  }
}

export class UnauthorizedError extends DomainError {
  constructor() {
    super('unauthorized', 'A valid bearer token is required.');
  }
}

export class InsufficientScopeError extends DomainError {
  constructor(readonly requiredScope: string) {
    super('insufficient_scope', `This operation needs a token with the '${requiredScope}' scope.`);
  }
}

export class RateLimitedError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `Rate limit exceeded; retry in ${retryAfterSeconds} seconds.`);
  }
}

/** A page cursor that this query did not issue: from another organisation or query, or forged. */
export class InvalidCursorError extends DomainError {
  constructor() {
    super(
      'invalid_cursor',
      'The cursor is not valid for this query; repeat the query without it to start again.',
    );
  }
}
