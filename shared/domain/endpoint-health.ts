/**
 * The `failing` disable: an endpoint whose every attempt has failed for this long is disabled, so
 * that a dead receiver stops costing attempts; its later events are logged `skipped`, not lost.
 * Five days by default (Svix and Stripe wait about as long), enough to outlast a long weekend.
 */
export const DEFAULT_DISABLE_AFTER_HOURS = 120;

/** `WEBHOOK_DISABLE_AFTER_HOURS`: a positive number of hours (fractions allowed, for tests); else it throws at load. */
export function parseDisableAfterHours(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_DISABLE_AFTER_HOURS;
  const hours = Number(value);
  if (!Number.isFinite(hours) || hours <= 0) {
    throw new Error(`WEBHOOK_DISABLE_AFTER_HOURS must be a positive number of hours; got "${value}".`);
  }
  return hours;
}

/** True when failures alone have lasted the whole window. */
export function failedLongEnough(failingSince: string, now: Date, disableAfterHours: number): boolean {
  return now.getTime() - Date.parse(failingSince) >= disableAfterHours * 3_600_000;
}
