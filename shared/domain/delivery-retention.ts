/**
 * How long the delivery log keeps an entry (and what recover and redeliver need to rebuild its
 * event). DynamoDB's TTL deletes an item some time after `expiresAt`, so reads also leave out what
 * has expired: an entry is never shown, redelivered or recovered after its retention.
 */
export const DEFAULT_DELIVERY_LOG_RETENTION_DAYS = 90;

/** `DELIVERY_LOG_RETENTION_DAYS`: a positive number of days (fractions allowed, for tests); else it throws. */
export function deliveryLogRetentionDays(value = process.env.DELIVERY_LOG_RETENTION_DAYS): number {
  if (value === undefined || value.trim() === '') return DEFAULT_DELIVERY_LOG_RETENTION_DAYS;
  const days = Number(value);
  if (!Number.isFinite(days) || days <= 0) {
    throw new Error(`DELIVERY_LOG_RETENTION_DAYS must be a positive number of days; got "${value}".`);
  }
  return days;
}

const retentionMs = (days: number) => days * 86_400_000;

/** The TTL attribute (epoch seconds) of an entry written at `at`. */
export function expiresAtOf(at: Date | string, days = deliveryLogRetentionDays()): number {
  const time = typeof at === 'string' ? Date.parse(at) : at.getTime();
  return Math.floor((time + retentionMs(days)) / 1000);
}

export const isExpired = (expiresAt: unknown, now = new Date()): boolean =>
  typeof expiresAt === 'number' && expiresAt * 1000 <= now.getTime();

/** The oldest moment the log still covers: a recover from earlier could not find what it asks for. */
export const retentionStart = (now: Date, days = deliveryLogRetentionDays()): Date =>
  new Date(now.getTime() - retentionMs(days));
