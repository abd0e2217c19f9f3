import { chromium } from 'playwright-core';

/** Debian's Chromium, headless; no browser is downloaded (FACTS.md). */
const CHROMIUM = '/usr/bin/chromium';

/** The one way the browser tests start Chromium. */
export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-dev-shm-usage',
    ],
  });
