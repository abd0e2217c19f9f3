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
  const stack = await startLocalStack();
  project.provide('baseUrl', stack.baseUrl);
  project.provide('stackDataDir', stack.dataDir);
  return async () => {
    await stack.stop();
  };
}
