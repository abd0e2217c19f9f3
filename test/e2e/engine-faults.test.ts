import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processAlive } from '../../infra/local/dynamodb-local.js';
import { mis, type RunningStack, startLocalStack } from '../support/local-stack.js';
import { about } from '../support/marker.js';
import { issueToken, postCreated } from '../support/scenario.js';
import { waitFor } from '../support/wait.js';
import { answer, startReceiver } from '../support/webhook-receiver.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const quickRetries = { DELIVERY_VISIBILITY_TIMEOUT_SECONDS: '2', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1' };

function enginePid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'dynamodb', 'dynamodb-local.pid'), 'utf8'));
}

/** An organisation with room for a burst (enterprise limit), a read-write token and a webhook to `url`. */
async function subscriber(stack: RunningStack, url: string): Promise<string> {
  const org = await mis<{ id: string }>(
    stack.dataDir,
    ...['org', 'create', '--name', 'Engine', '--tier', 'enterprise', '--rate-limit', '1000'],
  );
  await mis(stack.dataDir, 'webhook', 'add', '--org', org.id, '--url', url);
  return issueToken(stack, org.id, 'read,write');
}

const contribution = (n: number) => ({ amount: { value: `${n}.00`, currency: 'EUR' } });

describe('DynamoDB Local under faults', { timeout: 300_000 }, () => {
  it('outlives a SIGKILL of the whole process group, and the next start stops it cleanly: no acknowledged write is lost', async () => {
    const hook = await startReceiver(answer(200));
    closers.push(() => hook.close());
    const first = await startLocalStack(quickRetries, { ownProcessGroup: true });
    const token = await subscriber(first, hook.url);
    const engine = enginePid(first.dataDir);

    // The kill comes 0 ms after the last acknowledgement: the window in which a JVM killed with the
    // group loses acknowledged writes (FACTS.md).
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        postCreated<{ id: string }>(first, token, '/contributions', contribution(n + 1)),
      ),
    );
    await first.stop('SIGKILL', { group: true });
    expect(processAlive(engine)).toBe(true);

    const second = await startLocalStack({ ...quickRetries, DATA_DIR: first.dataDir });
    closers.push(() => second.stop());
    expect(processAlive(engine)).toBe(false);
    expect(enginePid(second.dataDir)).not.toBe(engine);
    for (const { id } of created) {
      const response = await fetch(`${second.baseUrl}/contributions/${id}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(response.status, `contribution ${id} after the restart`).toBe(200);
    }
    const ids = new Set(created.map((c) => c.id));
    await waitFor(
      () => `a webhook for each of the ${ids.size} contributions`,
      () => [...ids].every((id) => hook.received.some(about('contribution', id))) || undefined,
      { timeoutMs: 60_000 },
    );
    // A relay receipt names each event: none is left for the sweep.
    await waitFor(
      'no unrelayed outbox item',
      async () =>
        (await mis<unknown[]>(second.dataDir, 'outbox', 'overdue', '--older-than', '0')).length === 0,
    );
  });

  it('is restarted when killed alone: the API answers 503 meanwhile, then everything resumes', async () => {
    const hook = await startReceiver(answer(200));
    closers.push(() => hook.close());
    const stack = await startLocalStack(quickRetries);
    closers.push(() => stack.stop());
    const token = await subscriber(stack, hook.url);
    const before = await postCreated<{ id: string }>(stack, token, '/contributions', contribution(1));
    await hook.waitFor(1, about('contribution', before.id));

    const engine = enginePid(stack.dataDir);
    process.kill(engine, 'SIGKILL');
    const answers: { status: number; type: string | null; retryAfter: string | null }[] = [];
    await waitFor(
      () => `the API to answer again after the engine kill (saw ${JSON.stringify(answers)})`,
      async () => {
        const response = await fetch(`${stack.baseUrl}/contributions/${before.id}`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        await response.arrayBuffer();
        answers.push({
          status: response.status,
          type: response.headers.get('content-type'),
          retryAfter: response.headers.get('retry-after'),
        });
        return response.status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const unavailable = answers.filter((a) => a.status !== 200);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const a of unavailable) {
      expect(a).toEqual({ status: 503, type: 'application/problem+json', retryAfter: '2' });
    }
    expect(processAlive(engine)).toBe(false);
    expect(stack.output()).toContain('restarting it');

    const after = await postCreated<{ id: string }>(stack, token, '/contributions', contribution(2));
    await hook.waitFor(1, about('contribution', after.id), 30_000);
    // Pollers back off while the engine is away: one line per outage, not one per poll.
    expect(stack.output().split('Stream poll failed').length - 1).toBeLessThanOrEqual(1);

    const restarted = enginePid(stack.dataDir);
    expect(restarted).not.toBe(engine);
    const stopping = Date.now();
    expect(await stack.stop('SIGTERM')).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect(processAlive(restarted)).toBe(false);
  });
});
