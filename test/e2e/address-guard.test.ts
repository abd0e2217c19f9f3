import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse } from '../support/contract.js';
import { type RunningStack, startLocalStack } from '../support/local-stack.js';
import { createOrganisation, issueToken } from '../support/scenario.js';

/**
 * The address guard as it runs on AWS. The shared stack, the CLI and the other tests all allow
 * private URLs (a developer receives webhooks on localhost); this stack of its own does not.
 */
let stack: RunningStack;
let token: string;

beforeAll(async () => {
  stack = await startLocalStack({ ALLOW_PRIVATE_WEBHOOK_URLS: 'false' });
  const org = await createOrganisation(stack, 'Address guard');
  token = await issueToken(stack, org.id, 'read,write');
});
afterAll(async () => {
  await stack?.stop();
});

/** Calls the stack's API and checks the answer against the OpenAPI document, as `call` does. */
async function request(method: string, path: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  checkResponse({
    method,
    path,
    status: response.status,
    headers: response.headers,
    body: await response.clone().text(),
  });
  return response;
}

describe('POST /webhooks on a stack that does not allow private URLs', () => {
  it.each([
    ['https://10.1.2.3/hooks', 'private'],
    ['https://192.168.0.10:8443/hooks', 'private'],
    ['https://127.0.0.1:3000/hooks', 'loopback'],
    ['https://[::1]/hooks', 'loopback'],
    ['https://localhost/hooks', 'loopback'],
    ['https://169.254.169.254/latest/meta-data/iam/security-credentials/', 'metadata'],
  ])('refuses %s (a %s address) with 400 validation_failed', async (url, kind) => {
    const response = await request('POST', '/webhooks', { url });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [
        { field: 'url', message: `The webhook URL must point to a public address, not a ${kind} one.` },
      ],
    });
  });

  it('refuses plain http even to a public host', async () => {
    const response = await request('POST', '/webhooks', { url: 'http://hooks.example.com/incoming' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'url', message: 'The webhook URL must use https.' }],
    });
  });

  it('accepts a public https URL, and stored none of the refused ones', async () => {
    const url = 'https://hooks.example.com/incoming';
    const created = await request('POST', '/webhooks', { url });
    expect(created.status).toBe(201);
    const listed = (await (await request('GET', '/webhooks')).json()) as { data: { url: string }[] };
    expect(listed.data.map((endpoint) => endpoint.url)).toEqual([url]);
  });
});

describe('PATCH /webhooks/{id} on a stack that does not allow private URLs', () => {
  it('refuses a new private URL with 400 as at registration, and keeps the old one', async () => {
    const url = 'https://hooks.example.com/patched';
    const created = (await (await request('POST', '/webhooks', { url })).json()) as { id: string };
    const refused = await request('PATCH', `/webhooks/${created.id}`, { url: 'https://10.0.0.7/hooks' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: 'validation_failed',
      errors: [
        { field: 'url', message: 'The webhook URL must point to a public address, not a private one.' },
      ],
    });
    const kept = (await (await request('GET', `/webhooks/${created.id}`)).json()) as { url: string };
    expect(kept.url).toBe(url);
  });
});
