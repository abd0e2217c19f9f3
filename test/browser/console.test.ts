import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newOrganisation, newToken } from '../support/api.js';
import { launchChromium } from '../support/chromium.js';

const SCREENSHOT = '/tmp/api-console.png';
const SCREENSHOT_TOP = '/tmp/api-console-top.png';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Sends GET /ping from the console and returns the status it shows. */
async function executePing(page: Page): Promise<string> {
  const operation = page.locator('#operations-Health-ping');
  if (!(await operation.locator('.execute').isVisible())) await operation.locator('.opblock-summary').click();
  const responded = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/ping'));
  await operation.locator('button.execute').click();
  const response = await responded;
  // The console renders the answer after it arrives, and an earlier answer's row stays until then:
  // wait for the row of this one, then read what the page shows.
  const status = operation.locator('.live-responses-table .response .response-col_status', {
    hasText: String(response.status()),
  });
  await status.waitFor({ timeout: 10_000 });
  return ((await status.textContent()) ?? '').trim();
}

describe('the interactive console at /docs', () => {
  it('sends GET /ping without a token (401), then with one entered under Authorize (200), all from its own origin', async () => {
    const org = await newOrganisation();
    const { token } = await newToken(org.id, 'read');
    const origin = new URL(baseUrl()).origin;
    const page = await browser.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    try {
      await page.goto(`${baseUrl()}/docs`);
      await page.locator('#operations-Health-ping').waitFor({ timeout: 15_000 });
      expect(await page.locator('.info .title').textContent()).toContain('Membership and Incident Service');
      await page.screenshot({ path: SCREENSHOT_TOP });

      expect(await executePing(page)).toBe('401');

      await page.locator('.auth-wrapper .authorize').click();
      await page.locator('.auth-container input').fill(token);
      await page.locator('.auth-btn-wrapper button.authorize').click();
      await page.locator('.auth-btn-wrapper .btn-done').click();
      expect(await executePing(page)).toBe('200');
      const body = await page
        .locator('#operations-Health-ping .live-responses-table .response-col_description pre')
        .first()
        .textContent();
      expect(JSON.parse(body ?? '')).toMatchObject({ ok: true, organisationId: org.id });

      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      // Everything the page loaded or sent stayed on this origin, and nothing was refused by its CSP.
      expect(requested.length).toBeGreaterThanOrEqual(5);
      expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual(
        [],
      );
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
