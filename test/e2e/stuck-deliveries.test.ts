import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mis, startLocalStack } from '../support/local-stack.js';
import { about } from '../support/marker.js';
import { issueToken, postCreated } from '../support/scenario.js';
import { waitFor } from '../support/wait.js';
import { answer, startReceiver } from '../support/webhook-receiver.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

interface Stuck {
  deliveryId: string;
  organisationId: string;
  endpointId: string;
  event: string;
  nextAttempt: number;
  nextAttemptAt: string;
  overdueSeconds: number;
  why: string;
}

/**
 * The field's most common complaint, retries that silently stall, made visible: a delivery whose
 * message is lost while it waits out its backoff (here the queue's data wiped between two runs of
 * the stack) stays listed by `mis deliveries stuck` until someone acts.
 */
describe('mis deliveries stuck', { timeout: 180_000 }, () => {
  it('lists a delivery whose next attempt never came, with its ids and how long it is overdue', async () => {
    const hook = await startReceiver(answer(503));
    closers.push(() => hook.close());
    const env = { WEBHOOK_RETRY_DELAYS: '2,2,2,2,2' };
    const first = await startLocalStack(env);
    closers.push(() => first.stop());
    const org = await mis<{ id: string }>(first.dataDir, 'org', 'create', '--name', 'Stalled');
    await mis(
      first.dataDir,
      'webhook',
      'add',
      '--org',
      org.id,
      '--url',
      hook.url,
      '--events',
      'contribution.received',
    );
    const token = await issueToken(first, org.id, 'read,write');
    const { id } = await postCreated<{ id: string }>(first, token, '/contributions', {
      amount: { value: '5.00', currency: 'EUR' },
    });
    const [attempt] = await hook.waitFor(1, about('contribution', id));
    const deliveryId = String(attempt?.headers['x-service-delivery']);

    // The message is lost while it waits for its retry.
    await first.stop();
    rmSync(join(first.dataDir, 'sqs'), { recursive: true, force: true });
    const second = await startLocalStack({ ...env, DATA_DIR: first.dataDir });
    closers.push(() => second.stop());

    const listed = await waitFor('the delivery listed as stuck', async () =>
      (await mis<Stuck[]>(second.dataDir, 'deliveries', 'stuck', '--older-than', '0')).find(
        (d) => d.deliveryId === deliveryId,
      ),
    );
    expect(listed).toMatchObject({
      organisationId: org.id,
      event: 'contribution.received',
      why: 'retry_scheduled',
    });
    expect(listed.nextAttempt).toBeGreaterThanOrEqual(2);
    expect(listed.overdueSeconds).toBeGreaterThanOrEqual(0);
    // The default threshold (5 minutes) does not list it yet: a retry a few seconds late is not stuck.
    expect(
      (await mis<Stuck[]>(second.dataDir, 'deliveries', 'stuck')).some((d) => d.deliveryId === deliveryId),
    ).toBe(false);
  });
});
