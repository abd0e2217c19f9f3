import { addDays, startOfUtcDay, type UtcDate } from './calendar.js';

/**
 * Anonymised membership figures. A count from 1 to `minimumGroupSize - 1` is withheld (primary
 * suppression). Figures that add up to a published total are then checked as one table: if the
 * withheld cells of a table could be worked out by subtraction (one withheld cell, or withheld
 * cells whose sum is itself a small group), more cells are withheld, smallest first (secondary
 * suppression). Groups are listed by name, never by size, so their order reveals nothing either.
 */
export const DEFAULT_MINIMUM_GROUP_SIZE = 5;
export const MAX_MINIMUM_GROUP_SIZE = 100;

export type Figure = { count: number; withheld: false } | { count: null; withheld: true };

export interface MemberCounts {
  total: number;
  byMembershipType: Record<string, number>;
  byRegion: Record<string, number>;
  /** Members recorded without a region: a group of its own, or it could be derived as the rest. */
  regionUnspecified: number;
  /** Per UTC day of joining, for the days that can fall in the 365-day window. */
  joinedByDay: Record<UtcDate, number>;
  /** When a member was last recorded; null when none has been. */
  updatedAt: string | null;
}

/**
 * The counts of an organisation with no members yet. Membership types and regions are names a
 * client chose, so they are counted in objects without a prototype: `constructor` is one more name.
 */
export function emptyMemberCounts(): MemberCounts {
  return {
    total: 0,
    byMembershipType: Object.create(null) as Record<string, number>,
    byRegion: Object.create(null) as Record<string, number>,
    regionUnspecified: 0,
    joinedByDay: {},
    updatedAt: null,
  };
}

export interface MemberStatistics {
  asOf: string;
  minimumGroupSize: number;
  total: Figure;
  joined: { last30Days: Figure; last365Days: Figure };
  byMembershipType: ({ membershipType: string } & Figure)[];
  byRegion: ({ region: string | null } & Figure)[];
}

/** Reads the configured minimum group size; anything but a whole number from 2 to 100 is refused. */
export function minimumGroupSizeFrom(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_MINIMUM_GROUP_SIZE;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 2 || size > MAX_MINIMUM_GROUP_SIZE) {
    throw new Error(
      `The minimum group size must be a whole number from 2 to ${MAX_MINIMUM_GROUP_SIZE}, not "${value}".`,
    );
  }
  return size;
}

export const isSmall = (count: number, minimumGroupSize: number) => count >= 1 && count < minimumGroupSize;

/**
 * Which cells of one table to withhold, for cells that add up to `total`. When the total itself is
 * withheld, every non-zero cell is small and withheld already. Otherwise the withheld cells must be
 * at least two and together at least a minimum group, so that subtracting the shown cells from the
 * total pins down neither one cell nor a small group. Complements are the smallest non-zero shown
 * cells (the least information lost); a zero is taken only when nothing else is left, as hiding it
 * adds nothing to the withheld sum. Ties go to the earlier cell, so the result is deterministic.
 */
export function cellsToWithhold(cells: readonly number[], minimumGroupSize: number): boolean[] {
  const withheld = cells.map((count) => isSmall(count, minimumGroupSize));
  const total = cells.reduce((sum, count) => sum + count, 0);
  if (isSmall(total, minimumGroupSize)) return withheld;
  const hiddenSum = () => cells.reduce((sum, count, i) => sum + (withheld[i] ? count : 0), 0);
  const hiddenCount = () => withheld.filter(Boolean).length;
  while (hiddenCount() > 0 && (hiddenCount() < 2 || hiddenSum() < minimumGroupSize)) {
    let pick = -1;
    for (const [i, count] of cells.entries()) {
      if (withheld[i]) continue;
      const current = cells[pick];
      if (pick === -1 || current === undefined || rank(count) < rank(current)) pick = i;
    }
    if (pick === -1) break;
    withheld[pick] = true;
  }
  return withheld;
}

/** Zero sorts after every non-zero count: a zero is a complement of last resort. */
const rank = (count: number) => (count === 0 ? Number.POSITIVE_INFINITY : count);

const shown = (count: number): Figure => ({ count, withheld: false });
const hidden: Figure = { count: null, withheld: true };
const figure = (count: number, withhold: boolean): Figure => (withhold ? hidden : shown(count));

function groupTable<K extends string>(
  name: K,
  groups: [string | null, number][],
  minimumGroupSize: number,
): ({ [P in K]: string | null } & Figure)[] {
  const withheld = cellsToWithhold(
    groups.map(([, count]) => count),
    minimumGroupSize,
  );
  return groups.map(
    ([key, count], i) =>
      ({ [name]: key, ...figure(count, withheld[i] === true) }) as { [P in K]: string | null } & Figure,
  );
}

const byName = ([a]: [string, number], [b]: [string, number]) => (a < b ? -1 : a > b ? 1 : 0);

/** Members who joined on one of the last 30 (365) UTC calendar days, today included. */
export function joinWindows(
  joinedByDay: Record<UtcDate, number>,
  today: UtcDate,
): { last30: number; last365: number } {
  const from30 = addDays(today, -29);
  const from365 = addDays(today, -364);
  let last30 = 0;
  let last365 = 0;
  for (const [day, count] of Object.entries(joinedByDay)) {
    if (day >= from365) last365 += count;
    if (day >= from30) last30 += count;
  }
  return { last30, last365 };
}

/**
 * The published statistics. The join windows are cumulative (last 30 ⊂ last 365 ⊂ all), so they are
 * checked as the table of their disjoint parts: joined within 30 days, 31 to 365 days ago, earlier.
 * A cumulative figure is shown only when it follows from parts that are shown, so no withheld part
 * can be recovered as the difference of two published figures.
 *
 * `asOf` is when the figures last changed: the last recorded member, or the start of the current
 * UTC day, when the windows moved. It stays the same until the next change, and so does the ETag.
 */
export function memberStatistics(
  counts: MemberCounts,
  minimumGroupSize: number,
  now: Date,
): MemberStatistics {
  const dayStart = startOfUtcDay(now);
  const today = dayStart.toISOString().slice(0, 10);
  const totalWithheld = isSmall(counts.total, minimumGroupSize);
  const { last30, last365 } = joinWindows(counts.joinedByDay, today);
  const parts = [last30, last365 - last30, counts.total - last365];
  const [recent, year, earlier] = cellsToWithhold(parts, minimumGroupSize);
  const last365Withheld = !((!recent && !year) || (!earlier && !totalWithheld));

  const types = Object.entries(counts.byMembershipType).sort(byName);
  const regions: [string | null, number][] = Object.entries(counts.byRegion).sort(byName);
  if (counts.regionUnspecified > 0) regions.push([null, counts.regionUnspecified]);

  const asOf =
    counts.updatedAt !== null && Date.parse(counts.updatedAt) > dayStart.getTime()
      ? counts.updatedAt
      : dayStart.toISOString();
  return {
    asOf,
    minimumGroupSize,
    total: figure(counts.total, totalWithheld),
    joined: {
      last30Days: figure(last30, recent === true),
      last365Days: figure(last365, last365Withheld),
    },
    byMembershipType: groupTable(
      'membershipType',
      types,
      minimumGroupSize,
    ) as MemberStatistics['byMembershipType'],
    byRegion: groupTable('region', regions, minimumGroupSize) as MemberStatistics['byRegion'],
  };
}
