import { inject } from 'vitest';
import { checkResponse } from './contract.js';
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

/**
 * An organisation with a rate limit no test reaches, a token with `writerScopes` (read and write
 * unless said) and a read token for it.
 */
export async function unthrottledOrganisation(writerScopes = 'read,write'): Promise<{
  organisationId: string;
  writer: string;
  writerId: string;
  reader: string;
}> {
  const { id } = await newOrganisation('--tier', 'enterprise', '--rate-limit', '10000');
  const writer = await newToken(id, writerScopes);
  return {
    organisationId: id,
    writer: writer.token,
    writerId: writer.id,
    reader: (await newToken(id, 'read')).token,
  };
}

/**
 * Calls the API and checks the response against the OpenAPI document (docs/openapi.json) before the
 * test sees it: an undescribed status, a missing required header or a body off its schema fails the test.
 */
export async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const { token, headers, ...rest } = init;
  const response = await fetch(`${baseUrl()}${path}`, {
    ...rest,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(headers as Record<string, string>),
    },
  });
  checkResponse({
    method: init.method ?? 'GET',
    path: new URL(`${baseUrl()}${path}`).pathname.slice(new URL(baseUrl()).pathname.length),
    status: response.status,
    headers: response.headers,
    body: await response.clone().text(),
  });
  return response;
}

/** The parsed JSON body of a response, typed by the test that reads it. */
export async function bodyOf<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** POSTs a JSON body (or raw text, sent as is) through `call`, so the answer is contract-checked too. */
export function postJson(
  path: string,
  token: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return call(path, {
    method: 'POST',
    ...(token ? { token } : {}),
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A problem+json answer with this status and code (in the body too), and no stack trace; returns its body. */
export async function problemOf(response: Response, status: number, code: string) {
  const body = await bodyOf<{ status: number; code: string; errors?: { field: string; message: string }[] }>(
    response,
  );
  if (
    response.status !== status ||
    body.status !== status ||
    body.code !== code ||
    response.headers.get('content-type') !== 'application/problem+json'
  ) {
    throw new Error(`expected ${status} ${code}, got ${response.status} ${JSON.stringify(body)}`);
  }
  if (/\bat .*\.ts:\d+/.test(JSON.stringify(body))) {
    throw new Error(`a problem body holds a stack trace: ${JSON.stringify(body)}`);
  }
  return body;
}

/** A valid incident: high, confidentiality, detected an hour ago, unless `fields` say otherwise. */
export const incidentFields = (fields: Record<string, unknown> = {}) => ({
  severity: 'high',
  category: 'confidentiality',
  detectedAt: new Date(Date.now() - 3600_000).toISOString(),
  ...fields,
});

/** Declares an incident (`incidentFields`) through `postJson`, so the answer is contract-checked too. */
export function declareIncident(
  token: string,
  fields: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return postJson('/incidents', token, incidentFields(fields), headers);
}
