/** Calendar days in UTC as `YYYY-MM-DD`, which sort as text in the order of time. */
export type UtcDate = string;

const DAY_MS = 24 * 3600 * 1000;

export function utcDateOf(instant: Date): UtcDate {
  return instant.toISOString().slice(0, 10);
}

export function addDays(date: UtcDate, days: number): UtcDate {
  return utcDateOf(new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS));
}

export function startOfUtcDay(instant: Date): Date {
  return new Date(Date.parse(`${utcDateOf(instant)}T00:00:00.000Z`));
}
