import { afterAll, describe, expect, it } from 'vitest';
import { mis, type RunningStack, startLocalStack } from '../support/local-stack.js';
import { createOrganisation, issueToken, postTo } from '../support/scenario.js';
import { answer, firstThen, noAnswer, startReceiver } from '../support/webhook-receiver.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** A new organisation, whose webhooks go to `webhookUrl`, declares an incident on `stack`. */
async function declareWithWebhookTo(stack: RunningStack, webhookUrl: string): Promise<Response> {
  const org = await createOrganisation(stack, 'Crash');
  const token = await issueToken(stack, org.id, 'write');
  await mis(stack.dataDir, 'webhook', 'add', '--org', org.id, '--url', webhookUrl);
  return postTo(stack, token, '/incidents', {
    severity: 'low',
    category: 'availability',
    detectedAt: new Date().toISOString(),
  });
}

describe('a SIGKILL at any moment', { timeout: 120_000 }, () => {
  it('loses nothing: a delivery cut off mid-flight completes after a restart, with the same delivery id', async () => {
    // The receiver never answers the first request: the stack is killed while it waits.
    const hook = await startReceiver(firstThen(1, noAnswer, answer(200)));
    closers.push(() => hook.close());
    const env = { DELIVERY_VISIBILITY_TIMEOUT_SECONDS: '2', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1' };
    const first = await startLocalStack(env);
    const declared = await declareWithWebhookTo(first, hook.url);
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
    const declared = await declareWithWebhookTo(first, hook.url);
    const { id } = (await declared.json()) as { id: string };
    await first.stop('SIGKILL');
    const second = await startLocalStack({ DATA_DIR: first.dataDir });
    closers.push(() => second.stop());
    const [webhook] = await hook.waitFor(1, (w) => (w.body.incident as { id: string }).id === id, 30_000);
    expect(webhook?.body.event).toBe('incident.declared');
  });
});
