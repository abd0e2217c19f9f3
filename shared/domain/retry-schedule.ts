/**
 * When a failed delivery is tried again. A retry is a message made invisible for the delay
 * (`ChangeMessageVisibility`), so every delay is whole seconds and at most SQS's 12 h maximum.
 */
export const MAX_VISIBILITY_SECONDS = 43_200;

/** 30 s × 5ⁿ: about 30 s, 2.5 min, 12.5 min, 1 h, 5 h before retries 1 to 5. */
export const DEFAULT_RETRY_DELAYS: readonly number[] = [30, 150, 750, 3750, 18_750];

/**
 * Six attempts in all ("retried up to five times"): the first and one after each delay. The queue's
 * redrive policy moves a message to the dead-letter queue after this many receives.
 */
export const MAX_DELIVERY_ATTEMPTS = DEFAULT_RETRY_DELAYS.length + 1;

/** ±20 %, so that deliveries that failed together do not all come back in the same second. */
export const RETRY_JITTER = 0.2;

/** Statuses whose `Retry-After` is honoured (RFC 9110 defines it for 429 and 503 only). */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * The base delays from `WEBHOOK_RETRY_DELAYS` (five comma-separated whole seconds, each 1 to 43200),
 * or the default when unset. Anything else throws, so a bad setting stops the function at load
 * instead of silently retrying on another schedule.
 */
export function parseRetryDelays(value: string | undefined): readonly number[] {
  if (value === undefined || value.trim() === '') return DEFAULT_RETRY_DELAYS;
  const parts = value.split(',').map((part) => part.trim());
  const delays = parts.map((part) => (/^\d+$/.test(part) ? Number(part) : Number.NaN));
  const valid =
    delays.length === DEFAULT_RETRY_DELAYS.length &&
    delays.every((delay) => delay >= 1 && delay <= MAX_VISIBILITY_SECONDS);
  if (!valid) {
    throw new Error(
      `WEBHOOK_RETRY_DELAYS must be ${DEFAULT_RETRY_DELAYS.length} comma-separated whole seconds from 1 to ${MAX_VISIBILITY_SECONDS} (e.g. ${DEFAULT_RETRY_DELAYS.join(',')}); got "${value}".`,
    );
  }
  return delays;
}

/**
 * `Retry-After` as seconds from `now`: delta-seconds or an HTTP date (RFC 9110 §10.2.3). A date in
 * the past is 0; an unreadable value is ignored.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

export interface FailedAttempt {
  /** The attempt that just failed, 1 on the first try. */
  attempt: number;
  statusCode?: number;
  /** The raw `Retry-After` header of the answer, if any. */
  retryAfter?: string;
}

export interface RetryOptions {
  delays?: readonly number[];
  /** Uniform in [0, 1); injected by tests. */
  random?: () => number;
  now?: Date;
}

/**
 * Seconds to wait before the next attempt, or `undefined` when the attempt was the last one
 * (attempt ≥ delays.length + 1: six attempts with the five default delays).
 *
 * The rule: the schedule's delay for this attempt with ±20 % jitter, rounded to whole seconds and
 * kept within 1 s … 12 h. A `Retry-After` on a 429 or 503 replaces it, without jitter, clamped
 * between the smallest and the largest delay of the schedule (and never above 12 h): a subscriber
 * can slow us down or speed us up within the schedule's range, never make us hammer it nor park a
 * delivery beyond the schedule's longest wait.
 */
export function nextRetryDelay(failed: FailedAttempt, options: RetryOptions = {}): number | undefined {
  const delays = options.delays ?? DEFAULT_RETRY_DELAYS;
  const base = delays[failed.attempt - 1];
  if (base === undefined || failed.attempt < 1) return undefined;

  const retryAfter =
    failed.statusCode !== undefined && RETRY_AFTER_STATUSES.has(failed.statusCode)
      ? parseRetryAfter(failed.retryAfter, options.now ?? new Date())
      : undefined;
  if (retryAfter !== undefined) {
    const lower = Math.min(...delays);
    const upper = Math.min(Math.max(...delays), MAX_VISIBILITY_SECONDS);
    return clamp(retryAfter, lower, upper);
  }

  const random = options.random ?? Math.random;
  const jittered = base * (1 + RETRY_JITTER * (2 * random() - 1));
  return clamp(Math.round(jittered), 1, MAX_VISIBILITY_SECONDS);
}

function clamp(value: number, lower: number, upper: number): number {
  return Math.min(Math.max(value, lower), upper);
}
