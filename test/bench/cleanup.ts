type Cleanup = () => Promise<void> | void;

const cleanups: Cleanup[] = [];
const lastResorts: (() => void)[] = [];
let running: Promise<void> | undefined;

/**
 * Registers how to end something the bench started. `lastResort` must be synchronous: it is all
 * that can still run from the `exit` event, e.g. when an error escapes before the cleanups ran.
 */
export function onCleanup(cleanup: Cleanup, lastResort?: () => void): void {
  cleanups.push(cleanup);
  if (lastResort) lastResorts.push(lastResort);
}

/** Runs every cleanup once, newest first; safe to call from several paths at the same time. */
export function cleanUp(): Promise<void> {
  running ??= (async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error('bench: a cleanup failed:', error);
      }
    }
    lastResorts.length = 0;
  })();
  return running;
}

/** Ctrl-C and SIGTERM end the bench, and everything it started, at once. */
export function cleanUpOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\nbench: ${signal}, stopping everything it started…`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  process.once('exit', () => {
    for (const lastResort of lastResorts.reverse()) {
      try {
        lastResort();
      } catch {
        // Already gone.
      }
    }
  });
}
