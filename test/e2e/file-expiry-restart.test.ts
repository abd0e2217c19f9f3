import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verify } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { startLocalStack } from '../support/local-stack.js';
import { about, receivedBeforeMarker } from '../support/marker.js';
import { createOrganisation, issueToken, postCreated } from '../support/scenario.js';
import { startReceiver } from '../support/webhook-receiver.js';

const env = (dataDir: string) => ({
  DATA_DIR: dataDir,
  TIMER_INTERVAL_SECONDS: '1',
  WEBHOOK_RETRY_DELAYS: '1,1,1,1,1',
});

describe('a file that expires while the service is down', () => {
  it('fires its event after the next start, once, with attempt 1', { timeout: 150_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mis-restart-'));
    const hook = await startReceiver();
    let stack = await startLocalStack(env(dataDir));
    try {
      const organisation = await createOrganisation(stack, 'Restart test');
      const token = await issueToken(stack, organisation.id, 'read,write');
      const { secret } = await postCreated(stack, token, '/webhooks', {
        url: hook.url,
        events: ['sanctuary.file.expired'],
      });
      const expiresAt = new Date(Date.now() + 6000);
      const file = await postCreated<{ id: string }>(stack, token, '/sanctuary/files', {
        name: 'x.pdf',
        expiresAt: expiresAt.toISOString(),
      });

      expect(await stack.stop('SIGTERM')).toBe(0);
      expect(Date.now()).toBeLessThan(expiresAt.getTime());
      await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 1000));
      expect(hook.received).toEqual([]);

      const restartedAt = Date.now();
      stack = await startLocalStack(env(dataDir));
      const [webhook] = await hook.waitFor(1, about('file', file.id), 30_000);
      if (!webhook || !secret) throw new Error('no webhook');
      expect(webhook.at).toBeGreaterThan(restartedAt);
      expect(webhook.body).toEqual({
        event: 'sanctuary.file.expired',
        organisationId: organisation.id,
        file: { id: file.id, expiresAt: expiresAt.toISOString(), expiredAt: expect.any(String) },
        attempt: 1,
      });
      expect(Date.parse((webhook.body.file as { expiredAt: string }).expiredAt)).toBeGreaterThan(restartedAt);
      expect(await verify(secret, webhook.rawBody, String(webhook.headers['x-service-signature']))).toBe(
        true,
      );
      // A file expiring after it fires in a later run of the timers: nothing more came for this one by then.
      const later = await postCreated<{ id: string }>(stack, token, '/sanctuary/files', {
        name: 'later.pdf',
        expiresAt: new Date(Date.now() + 1500).toISOString(),
      });
      const isLater = about('file', later.id);
      const sent = await receivedBeforeMarker(hook, (w) => !isLater(w), isLater, { timeoutMs: 30_000 });
      expect(sent).toHaveLength(1);
    } finally {
      await stack.stop('SIGTERM');
      await hook.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
