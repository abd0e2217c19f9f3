import { expect } from 'vitest';
import { type FieldIssue, ValidationError } from '../../shared/domain/errors.js';

/** The error `act` throws, which must be a `type`; the test fails if it throws another or returns. */
export function thrownBy<E extends Error>(act: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}, but nothing was thrown`);
}

/** The field issues of the ValidationError that `act` throws, or none when it returns. */
export function validationIssuesOf(act: () => unknown): FieldIssue[] {
  try {
    act();
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.issues;
  }
}
