import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from './local-stack.js';
import { describeSecretsInLog, findSecrets, secretsIssuedBy } from './log-secrets.js';

/** The custom domain base path the e2e stack serves besides the root and the stage URL. */
export const E2E_BASE_PATH = 'membership';

/** The browser origins the e2e stack allows (two, so that the choice among several is exercised). */
export const E2E_CORS_ORIGINS = ['https://app.example.org', 'https://admin.example.org'] as const;

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    stackDataDir: string;
  }
}

const root = join(import.meta.dirname, '..', '..');

/**
 * One running local stack (`npm start`) shared by the end-to-end test files, logging at DEBUG (and
 * every delivery event), so that its whole output can be checked at the end: no token, token
 * secret, signing secret or signature may be in it. The output is kept in `.test-output/`.
 */
export default async function setup(project: TestProject) {
  // Retries a second apart instead of 30 s × 5ⁿ, so that the six attempts fit in a test; due timers
  // (deadline alarms, file expiries) checked every second instead of every 5.
  const stack = await startLocalStack({
    // Also served as a custom domain with this base path mapping (test/e2e/links.test.ts).
    LOCAL_BASE_PATH: E2E_BASE_PATH,
    CORS_ALLOW_ORIGINS: E2E_CORS_ORIGINS.join(','),
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
    POWERTOOLS_LOGGER_LOG_EVENT: 'true',
    WEBHOOK_RETRY_DELAYS: '1,1,1,1,1',
    TIMER_INTERVAL_SECONDS: '1',
  });
  project.provide('baseUrl', stack.baseUrl);
  project.provide('stackDataDir', stack.dataDir);
  return async () => {
    try {
      const issued = await secretsIssuedBy(stack.dataDir).finally(() => stack.stop());
      const logFile = join(root, '.test-output', `${project.name}-stack.log`);
      mkdirSync(join(root, '.test-output'), { recursive: true });
      writeFileSync(logFile, stack.output());
      const found = findSecrets(stack.output(), issued);
      if (found.length > 0) {
        throw new Error(
          `The local stack logged secrets (${relative(root, logFile)}; ${issued.length} issued secrets looked for):\n${describeSecretsInLog(found)}`,
        );
      }
    } catch (error) {
      // Vitest prints an error thrown by a global teardown but still exits with 0: fail the run.
      process.exitCode = 1;
      throw error;
    }
  };
}
