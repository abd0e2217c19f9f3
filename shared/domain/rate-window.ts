export const WINDOW_SECONDS = 60;

export interface RateWindow {
  /** Epoch seconds at which the window began; the counter's key. */
  start: number;
  /** Whole seconds until the next window (at least 1), for `RateLimit-Reset` and `Retry-After`. */
  resetSeconds: number;
  /** Epoch seconds after which the counter can be dropped by TTL. */
  expiresAt: number;
}

/** Fixed one-minute windows: one atomic counter per token and window is the whole state. */
export function rateWindowAt(nowMs: number, windowSeconds = WINDOW_SECONDS): RateWindow {
  const nowSeconds = nowMs / 1000;
  const start = Math.floor(nowSeconds / windowSeconds) * windowSeconds;
  const resetSeconds = Math.max(1, Math.ceil(start + windowSeconds - nowSeconds));
  return { start, resetSeconds, expiresAt: start + windowSeconds * 2 };
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}
