import type { TestProject } from 'vitest/node';
import { startLocalStack } from './local-stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    stackDataDir: string;
  }
}

/** One running local stack (`npm start`) shared by the end-to-end test files. */
export default async function setup(project: TestProject) {
  // Retries a second apart instead of 30 s × 5ⁿ, so that the six attempts fit in a test; due timers
  // (deadline alarms, file expiries) checked every second instead of every 5.
  const stack = await startLocalStack({ WEBHOOK_RETRY_DELAYS: '1,1,1,1,1', TIMER_INTERVAL_SECONDS: '1' });
  project.provide('baseUrl', stack.baseUrl);
  project.provide('stackDataDir', stack.dataDir);
  return async () => {
    await stack.stop();
  };
}
