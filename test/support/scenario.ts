import { mis, type RunningStack } from './local-stack.js';

/**
 * Steps for tests that start a stack of their own (startLocalStack) instead of the shared one: the
 * operator's CLI on that stack's data folder, and plain HTTP to its base URL.
 */
type OwnStack = Pick<RunningStack, 'baseUrl' | 'dataDir'>;

export function createOrganisation(stack: Pick<OwnStack, 'dataDir'>, name: string): Promise<{ id: string }> {
  return mis<{ id: string }>(stack.dataDir, 'org', 'create', '--name', name);
}

/** Issues a token with these scopes (comma-separated) and returns it. */
export async function issueToken(
  stack: Pick<OwnStack, 'dataDir'>,
  organisationId: string,
  scopes: string,
): Promise<string> {
  const args = ['token', 'issue', '--org', organisationId, '--scopes', scopes];
  return (await mis<{ token: string }>(stack.dataDir, ...args)).token;
}

/** POSTs a JSON body with the token as bearer. */
export function postTo(
  stack: Pick<OwnStack, 'baseUrl'>,
  token: string,
  path: string,
  body: unknown,
): Promise<Response> {
  return fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** POSTs like `postTo` and returns what was created, failing the test unless the answer is 201. */
export async function postCreated<T = Record<string, string>>(
  stack: Pick<OwnStack, 'baseUrl'>,
  token: string,
  path: string,
  body: unknown,
): Promise<T> {
  const response = await postTo(stack, token, path, body);
  if (response.status !== 201) {
    throw new Error(`expected 201 from POST ${path}, got ${response.status} ${await response.text()}`);
  }
  return (await response.json()) as T;
}
