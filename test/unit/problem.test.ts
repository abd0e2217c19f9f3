import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  InsufficientScopeError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from '../../shared/domain/errors.js';
import { problemForError } from '../../shared/http/problem.js';

function parsed(error: unknown) {
  const response = problemForError(error);
  return { response, body: JSON.parse(response.body) };
}

describe('problem mapping', () => {
  it.each([
    [new UnauthorizedError(), 401, 'unauthorized'],
    [new InsufficientScopeError('write'), 403, 'insufficient_scope'],
    [new NotFoundError('Incident x'), 404, 'not_found'],
    [new ConflictError('Already there'), 409, 'conflict'],
    [new ConflictError('Closed', 'invalid_transition'), 409, 'invalid_transition'],
    [new ValidationError([{ field: 'severity', message: 'Required' }]), 400, 'validation_failed'],
    [new RateLimitedError(12), 429, 'rate_limited'],
  ])('maps %s to %i with code %s as problem+json', (error, status, code) => {
    const { response, body } = parsed(error);
    expect(response.statusCode).toBe(status);
    expect(response.headers?.['Content-Type']).toBe('application/problem+json');
    expect(body).toMatchObject({ status, code, type: `urn:problem:${code}` });
    expect(typeof body.title).toBe('string');
    expect(typeof body.detail).toBe('string');
  });

  it('challenges with Bearer on 401 and names the scope on 403', () => {
    expect(parsed(new UnauthorizedError()).response.headers?.['WWW-Authenticate']).toMatch(/^Bearer/);
    expect(parsed(new InsufficientScopeError('write')).response.headers?.['WWW-Authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="write"',
    );
  });

  it('tells a rate-limited client when to retry', () => {
    expect(parsed(new RateLimitedError(12)).response.headers?.['Retry-After']).toBe('12');
  });

  it('names every offending field', () => {
    const { body } = parsed(
      new ValidationError([
        { field: 'severity', message: 'Required' },
        { field: 'detectedAt', message: 'Invalid date' },
      ]),
    );
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual(['severity', 'detectedAt']);
  });

  it('hides anything unexpected behind a generic 500 with no stack trace', () => {
    const error = new TypeError('secret internal detail');
    const { response, body } = parsed(error);
    expect(response.statusCode).toBe(500);
    expect(body.code).toBe('internal_error');
    expect(response.body).not.toContain('secret internal detail');
    expect(response.body).not.toContain('at ');
  });

  it('answers 503 with Retry-After when the table cannot be reached, however the SDK wraps it', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
    const wrapped = new AggregateError([refused], 'all attempts failed');
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    for (const error of [refused, wrapped, new Error('outer', { cause: refused }), throttled]) {
      const { response, body } = parsed(error);
      expect(response.statusCode).toBe(503);
      expect(response.headers?.['Retry-After']).toBe('2');
      expect(body).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(body.detail).not.toContain('ECONNREFUSED');
    }
    expect(parsed(new Error('a bug')).response.statusCode).toBe(500);
  });
});
