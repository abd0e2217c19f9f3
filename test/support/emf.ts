import type { MockInstance } from 'vitest';

/**
 * The EMF documents (metrics, as CloudWatch Logs reads them from a function's stdout) among what a
 * spy on `process.stdout.write` has seen.
 */
export function emfDocumentsOf(stdout: MockInstance<typeof process.stdout.write>): Record<string, unknown>[] {
  return stdout.mock.calls
    .flatMap(([chunk]) => String(chunk).split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
