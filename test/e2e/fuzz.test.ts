import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, bodyOf, postJson, unthrottledOrganisation } from '../support/api.js';
import { checkResponse } from '../support/contract.js';
import { documentOperations, type FuzzRequest, requestsFor } from '../support/openapi-arbitraries.js';

/**
 * Requests generated from the OpenAPI document (test/support/openapi-arbitraries.ts), mostly fitting
 * and sometimes not, sent to the running service. Whatever they are: no 5xx; every answer is one
 * the document describes for the operation, with its required headers and a body that fits its
 * schema (test/support/contract.ts), which makes every error a problem+json with a documented status;
 * and a problem says the status it was sent with, has a code and no stack trace. The seed is fixed
 * and the number of runs bounded, so a run is the same every time and takes seconds.
 */
const SEED = 20_261_122;
const RUNS_PER_OPERATION = 12;

type Tenant = Awaited<ReturnType<typeof unthrottledOrganisation>>;
/** Everything but webhooks happens in one organisation, webhook endpoints in another: no event ever reaches one. */
let tenant: Tenant;
let hooks: Tenant;
/** Resources that exist, by the first segment of the paths that name them. */
const existing = new Map<string, string[]>();

async function created(path: string, token: string, body: unknown): Promise<string> {
  const response = await postJson(path, token, body);
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return (await bodyOf<{ id: string }>(response)).id;
}

beforeAll(async () => {
  [tenant, hooks] = await Promise.all([unthrottledOrganisation(), unthrottledOrganisation()]);
  const memberId = await created('/members', tenant.writer, { membershipType: 'regular' });
  const incident = await created('/incidents', tenant.writer, {
    severity: 'low',
    category: 'availability',
    detectedAt: new Date().toISOString(),
  });
  const amount = { value: '5.00', currency: 'EUR' };
  existing.set('/incidents', [incident]);
  existing.set('/contributions', [await created('/contributions', tenant.writer, { amount, memberId })]);
  existing.set('/timebank', [await created('/timebank/payouts', tenant.writer, { memberId, hours: 1.5 })]);
  existing.set('/sanctuary', [
    await created('/sanctuary/files', tenant.writer, { name: 'f', expiresAt: '2099-01-01T00:00:00Z' }),
  ]);
  existing.set('/webhooks', [
    await created('/webhooks', hooks.writer, {
      url: 'http://127.0.0.1:9/fuzz',
      events: ['incident.deadline_72h'],
    }),
  ]);
});

function tokenFor(request: FuzzRequest, path: string): string | undefined {
  const owner = path.startsWith('/webhooks') ? hooks : tenant;
  return request.auth === 'writer' ? owner.writer : request.auth === 'reader' ? owner.reader : undefined;
}

const describeRequest = (request: FuzzRequest) =>
  `${request.method} ${request.path} ${JSON.stringify(request.headers)} auth=${request.auth} body=${
    request.body ? Buffer.from(request.body).toString('utf8').slice(0, 300) : '(none)'
  }`;

async function sendAndCheck(request: FuzzRequest, template: string): Promise<void> {
  const token = tokenFor(request, template);
  const response = await fetch(`${baseUrl()}${request.path}`, {
    method: request.method,
    headers: { ...request.headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    ...(request.body ? { body: request.body } : {}),
  });
  const body = await response.text();
  const where = `${describeRequest(request)}\n→ ${response.status} ${body.slice(0, 500)}`;
  expect(response.status, where).toBeLessThan(500);
  expect(
    () =>
      checkResponse({
        method: request.method,
        path: request.path.split('?')[0] ?? '',
        status: response.status,
        headers: response.headers,
        body,
      }),
    where,
  ).not.toThrow();
  if (response.status >= 400) {
    const problem = JSON.parse(body) as { status: number; code: string };
    expect(problem.status, where).toBe(response.status);
    expect(problem.code, where).toMatch(/^[a-z_]+$/);
    expect(body, where).not.toMatch(/\bat .*\.(ts|js):\d+|node_modules/);
  }
}

describe('requests generated from the OpenAPI document', () => {
  it.each(
    documentOperations().map(([method, path, operation]) => [
      `${method.toUpperCase()} ${path}`,
      method,
      path,
      operation,
    ]),
  )('%s: never a 5xx, every answer as documented', async (_, method, path, operation) => {
    const ids = existing.get(`/${path.split('/')[1]}`) ?? [];
    await fc.assert(
      fc.asyncProperty(requestsFor(method, path, operation, ids), (request) => sendAndCheck(request, path)),
      { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
    );
  });
});
