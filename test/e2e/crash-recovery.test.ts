import { afterAll, describe, expect, it } from 'vitest';
import { mis, startLocalStack } from '../support/local-stack.js';
import { answer, startReceiver } from '../support/receiver.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('a SIGKILL at any moment', { timeout: 120_000 }, () => {
  it('loses nothing: a delivery cut off mid-flight completes after a restart, with the same delivery id', async () => {
    // The receiver never answers the first request: the stack is killed while it waits.
    const hook = await startReceiver((_request, response, index) => {
      if (index > 0) answer(200)(_request, response, index);
    });
    closers.push(() => hook.close());
    const env = { DELIVERY_VISIBILITY_TIMEOUT_SECONDS: '2', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1' };
    const first = await startLocalStack(env);
    const org = await mis<{ id: string }>(first.dataDir, 'org', 'create', '--name', 'Crash');
    const { token } = await mis<{ token: string }>(
      first.dataDir,
      'token',
      'issue',
      '--org',
      org.id,
      '--scopes',
      'write',
    );
    await mis(first.dataDir, 'webhook', 'add', '--org', org.id, '--url', hook.url);
    const declared = await fetch(`${first.baseUrl}/incidents`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        severity: 'low',
        category: 'availability',
        detectedAt: new Date().toISOString(),
      }),
    });
    expect(declared.status).toBe(201);
    await hook.waitFor(1);
    await first.stop('SIGKILL');

    const second = await startLocalStack({ ...env, DATA_DIR: first.dataDir });
    closers.push(() => second.stop());
    const [cut, completed] = await hook.waitFor(2, () => true, 30_000);
    expect(completed?.headers['x-service-delivery']).toBe(cut?.headers['x-service-delivery']);
    expect(completed?.body.attempt).toBe(2);
  });

  it('loses nothing: an event committed just before the kill is relayed after the restart', async () => {
    const hook = await startReceiver();
    closers.push(() => hook.close());
    const first = await startLocalStack();
    const org = await mis<{ id: string }>(first.dataDir, 'org', 'create', '--name', 'Crash');
    const { token } = await mis<{ token: string }>(
      first.dataDir,
      'token',
      'issue',
      '--org',
      org.id,
      '--scopes',
      'write',
    );
    await mis(first.dataDir, 'webhook', 'add', '--org', org.id, '--url', hook.url);
    const declared = await fetch(`${first.baseUrl}/incidents`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        severity: 'low',
        category: 'availability',
        detectedAt: new Date().toISOString(),
      }),
    });
    const { id } = (await declared.json()) as { id: string };
    await first.stop('SIGKILL');
    const second = await startLocalStack({ DATA_DIR: first.dataDir });
    closers.push(() => second.stop());
    const [webhook] = await hook.waitFor(1, (w) => (w.body.incident as { id: string }).id === id, 30_000);
    expect(webhook?.body.event).toBe('incident.declared');
  });
});
