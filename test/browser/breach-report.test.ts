import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, bodyOf, declareIncident, postJson, unthrottledOrganisation } from '../support/api.js';
import { launchChromium } from '../support/chromium.js';

/** Beside the console's screenshots, for a reviewer to look at. */
const SCREENSHOT = '/tmp/breach-report.png';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** A record with every section filled in, notified late with its reasons and followed up. */
async function keptRecord(writer: string): Promise<string> {
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
  const declared = await declareIncident(writer, {
    title: 'Laptop with the membership list lost on a train',
    description: 'An unencrypted laptop <b>with</b> the 2026 membership list was left on a train.',
    detectedAt: hoursAgo(80),
    occurredAt: hoursAgo(82),
    dataSubjects: { categories: ['members', 'minors'], approximateCount: 420 },
    personalData: { categories: ['identity', 'contact', 'health'], approximateRecords: 430 },
    likelyConsequences: 'Phishing aimed at members; disclosure of health notes of the youth section.',
    measuresTaken: 'Remote wipe requested; passwords of the member portal reset.',
    measuresProposed: 'Full-disk encryption on every laptop; health notes kept off laptops.',
    contact: { name: 'Data protection officer', email: 'dpo@example.org' },
    risk: { level: 'high', rationale: 'Health data of minors, readable without a password.' },
  });
  const { id } = await bodyOf<{ id: string }>(declared);
  const steps = [
    [`/incidents/${id}/contain`, { note: 'Remote wipe confirmed.' }],
    [
      `/incidents/${id}/notify`,
      {
        authorityReference: 'DPA-2026-17',
        summary: 'Initial notification by the online form.',
        delayReason: 'The list on the laptop was only identified after the backup was restored.',
      },
    ],
    [`/incidents/${id}/authority-updates`, { summary: 'The wipe was confirmed; no access seen.' }],
    [
      `/incidents/${id}/data-subject-communication`,
      { decision: 'communicated', channel: 'email and letter' },
    ],
  ] as const;
  for (const [path, body] of steps) expect((await postJson(path, writer, body)).status).toBe(200);
  return id;
}

describe('the printable authority report', () => {
  it('shows every Art. 33(3) section and the timeline, loads nothing from elsewhere and runs no script', async () => {
    const tenant = await unthrottledOrganisation();
    const id = await keptRecord(tenant.writer);
    const origin = new URL(baseUrl()).origin;
    const context = await browser.newContext({
      extraHTTPHeaders: { Authorization: `Bearer ${tenant.reader}` },
    });
    const page = await context.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => problems.push(`${message.type()}: ${message.text()}`));
    try {
      const response = await page.goto(`${baseUrl()}/incidents/${id}/report`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
      await expect.poll(() => page.title()).toContain('Personal-data breach notification');

      const titles = await page.locator('section h2').allTextContents();
      expect(titles).toEqual([
        'Art. 33(3)(a) Nature of the breach',
        'Art. 33(3)(b) Data-protection officer or contact point',
        'Art. 33(3)(c) Likely consequences',
        'Art. 33(3)(d) Measures taken or proposed',
        'Notification of the supervisory authority (Art. 33(1), (4))',
        'Communication to the people concerned (Art. 34)',
        'Timeline',
      ]);
      expect(await page.locator('#nature').textContent()).toContain('approximately 420 people');
      expect(await page.locator('#nature').textContent()).toContain('<b>with</b>');
      expect(await page.locator('#nature b').count()).toBe(0);
      expect(await page.locator('#notification').textContent()).toContain(
        'Reasons for the delay: The list on the laptop was only identified',
      );
      expect(await page.locator('#timeline tbody tr').count()).toBeGreaterThanOrEqual(7);
      // Its style block applied under the CSP, which allows it by hash only.
      expect(await page.evaluate("getComputedStyle(document.querySelector('table')).borderCollapse")).toBe(
        'collapse',
      );
      expect(await page.locator('script').count()).toBe(0);

      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      await page.emulateMedia({ media: 'print' });
      expect((await page.pdf({ format: 'A4' })).byteLength).toBeGreaterThan(10_000);

      expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
      expect(requested).toHaveLength(1);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
