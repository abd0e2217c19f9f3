import { afterAll, describe, expect, it } from 'vitest';
import { incidentFields } from '../support/api.js';
import { mis, type RunningStack, startLocalStack } from '../support/local-stack.js';
import { forIncident } from '../support/marker.js';
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
  return postTo(
    stack,
    token,
    '/incidents',
    incidentFields({ severity: 'low', category: 'availability', detectedAt: new Date().toISOString() }),
  );
}

/** Short retries and visibility, so that a delivery cut off by the kill comes back within the test. */
const quickRetries = { DELIVERY_VISIBILITY_TIMEOUT_SECONDS: '2', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1' };

describe('a SIGKILL at any moment', { timeout: 120_000 }, () => {
  it('loses nothing: a delivery cut off mid-flight is tried again at once after a restart, with the same delivery id', async () => {
    // The receiver never answers the first request: the stack is killed while it waits. The queue's
    // visibility timeout is AWS's 180 s here: the attempt comes back within the test only because
    // the restarted stack releases what was in flight when it died.
    const hook = await startReceiver(firstThen(1, noAnswer, answer(200)));
    closers.push(() => hook.close());
    const awsVisibility = { WEBHOOK_RETRY_DELAYS: '1,1,1,1,1' };
    const first = await startLocalStack(awsVisibility);
    const declared = await declareWithWebhookTo(first, hook.url);
    expect(declared.status).toBe(201);
    await hook.waitFor(1);
    await first.stop('SIGKILL');

    const restartedAt = Date.now();
    const second = await startLocalStack({ ...awsVisibility, DATA_DIR: first.dataDir });
    closers.push(() => second.stop());
    const [cut, completed] = await hook.waitFor(2, () => true, 30_000);
    expect(completed?.at).toBeGreaterThan(restartedAt);
    expect(completed?.headers['x-service-delivery']).toBe(cut?.headers['x-service-delivery']);
    expect(completed?.body.attempt).toBe(2);
  });

  it('loses nothing: an event committed just before the kill is delivered after the restart', async () => {
    // Until the kill nothing is answered: whether the first stack relayed the event or not, only the
    // second one can complete its delivery, and the webhook has to arrive after the restart.
    const hook = await startReceiver(noAnswer);
    closers.push(() => hook.close());
    const first = await startLocalStack(quickRetries);
    const declared = await declareWithWebhookTo(first, hook.url);
    expect(declared.status).toBe(201);
    const { id } = (await declared.json()) as { id: string };
    await first.stop('SIGKILL');
    hook.behave(answer(200));

    const restartedAt = Date.now();
    const second = await startLocalStack({ ...quickRetries, DATA_DIR: first.dataDir });
    closers.push(() => second.stop());
    const [webhook] = await hook.waitFor(1, (w) => forIncident(id)(w) && w.at > restartedAt, 30_000);
    expect(webhook?.body.event).toBe('incident.declared');
  });
});
