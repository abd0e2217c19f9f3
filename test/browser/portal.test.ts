import { createHmac } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, bodyOf, call, declareIncident, postJson, unthrottledOrganisation } from '../support/api.js';
import { launchChromium } from '../support/chromium.js';
import { forIncident } from '../support/marker.js';
import { waitFor } from '../support/wait.js';
import { answer, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/** Screenshots are test output: kept in .test-output/ and copied to /tmp for a quick look. */
const OUTPUT = join(import.meta.dirname, '..', '..', '.test-output');

let browser: Browser;
const receivers: Receiver[] = [];

async function screenshot(page: import('playwright-core').Page, name: string) {
  mkdirSync(OUTPUT, { recursive: true });
  const path = join(OUTPUT, `portal-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  copyFileSync(path, `/tmp/portal-${name}.png`);
}

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(receivers.map((r) => r.close()));
});

describe('the webhooks page at /portal', () => {
  it('shows a failing endpoint as failing, redelivers a failed delivery that then succeeds, and rotates the secret', async () => {
    const { writer } = await unthrottledOrganisation();
    const failing = await startReceiver(answer(500, 'down for maintenance'));
    const healthy = await startReceiver(answer(200));
    receivers.push(failing, healthy);
    const register = async (url: string) =>
      bodyOf<{ id: string; secret: string }>(
        await postJson('/webhooks', writer, {
          url,
          events: ['incident.declared'],
          description: 'Case system',
        }),
      );
    const broken = await register(failing.url);
    await register(healthy.url);
    const declared = await bodyOf<{ id: string }>(await declareIncident(writer));
    // Six attempts one second apart on the test stack, then the delivery is failed.
    await waitFor(
      'the delivery to the failing endpoint to be failed',
      async () => {
        const log = await bodyOf<{ data: { outcome: string }[] }>(
          await call(`/webhooks/${broken.id}/deliveries`, { token: writer }),
        );
        return log.data.some((a) => a.outcome === 'failed');
      },
      { timeoutMs: 40_000 },
    );

    const origin = new URL(baseUrl()).origin;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    try {
      await page.goto(`${baseUrl()}/portal`);
      await page.locator('#token').fill(writer);
      await page.locator('#token-form button[type=submit]').click();
      const brokenRow = page.locator(`tr[data-endpoint="${broken.id}"]`);
      await brokenRow.waitFor({ timeout: 15_000 });

      // A failing endpoint: its status says failing, its recent success rate is 0 %.
      expect(await brokenRow.locator('.status').textContent()).toMatch(/enabled, failing since/);
      expect(await brokenRow.locator('.rate').textContent()).toBe('0% of last 6 attempts');
      expect(await brokenRow.textContent()).toContain('Case system');
      expect(await page.locator('tr[data-endpoint] .rate').allTextContents()).toContain(
        '100% of last 1 attempt',
      );
      await brokenRow.locator('button[data-action=deliveries]').click();
      const delivery = page.locator('#deliveries tr[data-delivery]').first();
      await delivery.waitFor();
      expect(await delivery.locator('.outcome').textContent()).toBe('failed');
      expect(await delivery.locator('.attempts li').count()).toBe(6);
      await screenshot(page, 'failing');

      // The receiver is back: a redeliver from the page succeeds as the seventh attempt.
      failing.behave(answer(200));
      await delivery.locator('button[data-action=redeliver]').click();
      const [seventh] = (await failing.waitFor(7, forIncident(declared.id))).slice(6);
      expect(seventh?.body.attempt).toBe(7);
      await waitFor('the log to hold the successful attempt', async () => {
        const log = await bodyOf<{ data: { outcome: string; attempt: number }[] }>(
          await call(`/webhooks/${broken.id}/deliveries`, { token: writer }),
        );
        return log.data.some((a) => a.attempt === 7 && a.outcome === 'succeeded');
      });
      // The redeliver's own refresh may already show the success in the log while its endpoint
      // rows were read before it: wait for this refresh to have replaced both tables.
      await page.locator('#refresh').click();
      await page.locator('body:not([aria-busy])').waitFor();
      expect(await page.locator('#status').getAttribute('class')).not.toBe('error');
      expect(await page.locator('#deliveries tr[data-delivery] .outcome').first().textContent()).toBe(
        'succeeded',
      );
      expect(await page.locator('#deliveries tr[data-delivery] .attempts li').count()).toBe(7);
      expect(await brokenRow.locator('.status').textContent()).toBe('enabled');
      await screenshot(page, 'redelivered');

      // Rotation: the new secret is shown once, and the next delivery is signed with it.
      await brokenRow.locator('button[data-action=rotate]').click();
      await page.locator('#secret-box').waitFor({ state: 'visible' });
      const secret = ((await page.locator('#secret-value').textContent()) ?? '').trim();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(secret).not.toBe(broken.secret);
      expect(await page.locator('#secret-overlap').textContent()).toMatch(
        /old secret keeps signing beside it until/,
      );
      await screenshot(page, 'rotated');
      const next = await bodyOf<{ id: string }>(await declareIncident(writer));
      const [signed] = await failing.waitFor(1, forIncident(next.id));
      const expected = `sha256=${createHmac('sha256', secret)
        .update(signed?.rawBody ?? '')
        .digest('hex')}`;
      expect(signed?.headers['x-service-signature']).toBe(expected);
      await page.locator('#secret-done').click();
      expect(await page.locator('#secret-box').isHidden()).toBe(true);
      expect(await page.locator('#secret-value').textContent()).toBe('');

      // The token stayed in the script: not in storage, a cookie or the address.
      // A string, so that it runs in the page as written (this file is not compiled with the DOM's types).
      const kept = await page.evaluate(`({
        storage: JSON.stringify(localStorage) + JSON.stringify(sessionStorage),
        cookie: document.cookie,
        url: location.href,
        field: document.getElementById('token').value,
      })`);
      expect(JSON.stringify(kept)).not.toContain(writer);
      // Everything stayed on this origin, and nothing was refused by the page's CSP.
      expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual(
        [],
      );
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
