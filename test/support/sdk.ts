import { expect } from 'vitest';
import { ApiError, type ClientOptions, createClient } from '../../sdk/src/index.js';
import { baseUrl } from './api.js';
import { checkResponse } from './contract.js';

/** One attempt the SDK sent, as it went over the wire. */
export interface SentAttempt {
  method: string;
  path: string;
  idempotencyKey: string | null;
  status: number;
}

/**
 * The SDK's client against the e2e stack, sending each attempt through the real fetch while noting it
 * and checking its answer against the OpenAPI document (as `call` does for the other tests).
 */
export function sdkClient(token: string, options: Partial<ClientOptions> = {}) {
  const sent: SentAttempt[] = [];
  const base = baseUrl();
  const client = createClient({
    baseUrl: base,
    token,
    ...options,
    fetch: async (request) => {
      const response = await fetch(request);
      const url = new URL(request.url);
      const path = url.pathname.slice(new URL(base).pathname.length);
      sent.push({
        method: request.method,
        path: `${path}${url.search}`,
        idempotencyKey: request.headers.get('idempotency-key'),
        status: response.status,
      });
      checkResponse({
        method: request.method,
        path,
        status: response.status,
        headers: response.headers,
        body: await response.clone().text(),
      });
      return response;
    },
  });
  return { client, sent };
}

/** The error a call rejects with, which must be a `type`; the test fails if the call succeeds. */
export async function rejectionOf(call: Promise<unknown>): Promise<ApiError>;
export async function rejectionOf<E extends Error>(
  call: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E>;
export async function rejectionOf(
  call: Promise<unknown>,
  type: abstract new (...args: never[]) => Error = ApiError,
): Promise<Error> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as Error;
  }
  throw new Error(`expected a ${type.name}, but the call succeeded`);
}
