import { inject } from 'vitest';
import { mis } from './local-stack.js';

export interface Organisation {
  id: string;
  name: string;
  tier: string;
  rateLimitPerMinute: number;
}

export interface IssuedToken {
  id: string;
  token: string;
  prefix: string;
  scopes: string[];
}

export const baseUrl = () => inject('baseUrl');

export function cli<T>(...args: string[]): Promise<T> {
  return mis<T>(inject('stackDataDir'), ...args);
}

export async function newOrganisation(...extra: string[]): Promise<Organisation> {
  return cli<Organisation>('org', 'create', '--name', `Test ${Date.now()}`, ...extra);
}

export async function newToken(organisationId: string, scopes = 'read,write'): Promise<IssuedToken> {
  return cli<IssuedToken>('token', 'issue', '--org', organisationId, '--scopes', scopes);
}

export function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const { token, headers, ...rest } = init;
  return fetch(`${baseUrl()}${path}`, {
    ...rest,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(headers as Record<string, string>),
    },
  });
}

/** The parsed JSON body of a response, typed by the test that reads it. */
export async function bodyOf<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
