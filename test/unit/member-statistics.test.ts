import { describe, expect, it } from 'vitest';
import {
  cellsToWithhold,
  DEFAULT_MINIMUM_GROUP_SIZE,
  emptyMemberCounts,
  type Figure,
  type MemberCounts,
  memberStatistics,
  minimumGroupSizeFrom,
} from '../../shared/domain/member-statistics.js';

const NOW = new Date('2026-11-22T10:00:00.000Z');
const K = DEFAULT_MINIMUM_GROUP_SIZE;

function counts(partial: Partial<MemberCounts>): MemberCounts {
  return { ...emptyMemberCounts(), ...partial };
}

/** A deterministic PRNG, so that a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const value = (figure: Figure) => figure.count;

describe('cellsToWithhold: one table whose cells add up to a published total', () => {
  it('shows every cell when none is small', () => {
    expect(cellsToWithhold([20, 5, 0, 9], K)).toEqual([false, false, false, false]);
  });

  it('withholds a small cell and, as it could be derived from the total, the smallest other one', () => {
    expect(cellsToWithhold([20, 3], K)).toEqual([true, true]);
    expect(cellsToWithhold([10, 8, 2], K)).toEqual([false, true, true]);
  });

  it('withholds more when the withheld cells together are still a small group', () => {
    // 1 + 2 = 3 could be derived as total minus the shown cells: one more must go.
    expect(cellsToWithhold([10, 1, 2, 9], K)).toEqual([false, true, true, true]);
  });

  it('takes a non-zero complement rather than a zero, which would hide nothing', () => {
    expect(cellsToWithhold([0, 3, 50], K)).toEqual([false, true, true]);
  });

  it('withholds every non-zero cell when the total itself is small', () => {
    expect(cellsToWithhold([0, 3, 1], K)).toEqual([false, true, true]);
  });

  it('never leaves a withheld cell or a small sum derivable (1000 random tables)', () => {
    const next = random(42);
    for (let run = 0; run < 1000; run++) {
      const k = 2 + Math.floor(next() * 8);
      const cells = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
        next() < 0.2 ? 0 : Math.floor(next() * 3 * k),
      );
      const withheld = cellsToWithhold(cells, k);
      const total = cells.reduce((a, b) => a + b, 0);
      const shown = cells.filter((_, i) => !withheld[i]);
      for (const count of shown) expect(count === 0 || count >= k, `${cells} k=${k}`).toBe(true);
      if (total >= k) {
        const hiddenCells = cells.filter((_, i) => withheld[i]);
        const hiddenSum = total - shown.reduce((a, b) => a + b, 0);
        if (hiddenCells.length > 0) {
          expect(hiddenCells.length, `${cells} k=${k}`).toBeGreaterThanOrEqual(2);
          expect(hiddenSum, `${cells} k=${k}`).toBeGreaterThanOrEqual(k);
        }
      }
    }
  });
});

describe('memberStatistics', () => {
  it('shows everything when every group is large enough', () => {
    const stats = memberStatistics(
      counts({
        total: 30,
        byMembershipType: { student: 10, regular: 20 },
        byRegion: { south: 12, north: 18 },
        joinedByDay: { '2026-11-20': 6, '2026-06-01': 9 },
        updatedAt: '2026-11-22T09:00:00.000Z',
      }),
      K,
      NOW,
    );
    expect(stats).toEqual({
      asOf: '2026-11-22T09:00:00.000Z',
      minimumGroupSize: 5,
      total: { count: 30, withheld: false },
      joined: { last30Days: { count: 6, withheld: false }, last365Days: { count: 15, withheld: false } },
      // By name, never by size: the order must not hint at a withheld count.
      byMembershipType: [
        { membershipType: 'regular', count: 20, withheld: false },
        { membershipType: 'student', count: 10, withheld: false },
      ],
      byRegion: [
        { region: 'north', count: 18, withheld: false },
        { region: 'south', count: 12, withheld: false },
      ],
    });
  });

  it('withholds every figure when the organisation has fewer members than the minimum', () => {
    const stats = memberStatistics(
      counts({
        total: 3,
        byMembershipType: { regular: 3 },
        byRegion: { north: 3 },
        joinedByDay: { '2026-11-22': 3 },
      }),
      K,
      NOW,
    );
    expect(stats.total).toEqual({ count: null, withheld: true });
    expect(stats.joined.last30Days.withheld).toBe(true);
    expect(stats.joined.last365Days.withheld).toBe(true);
    expect(stats.byMembershipType).toEqual([{ membershipType: 'regular', count: null, withheld: true }]);
    expect(stats.byRegion.every((group) => group.withheld)).toBe(true);
  });

  it('does not let a small type be derived from the total and the other types', () => {
    const stats = memberStatistics(
      counts({ total: 23, byMembershipType: { regular: 20, honorary: 3 }, byRegion: { north: 23 } }),
      K,
      NOW,
    );
    expect(stats.total).toEqual({ count: 23, withheld: false });
    expect(stats.byMembershipType).toEqual([
      { membershipType: 'honorary', count: null, withheld: true },
      { membershipType: 'regular', count: null, withheld: true },
    ]);
  });

  it('counts members without a region as a group of their own, listed last', () => {
    const stats = memberStatistics(
      counts({
        total: 22,
        byMembershipType: { regular: 22 },
        byRegion: { north: 10, east: 10 },
        regionUnspecified: 2,
      }),
      K,
      NOW,
    );
    expect(stats.byRegion).toEqual([
      { region: 'east', count: null, withheld: true },
      { region: 'north', count: 10, withheld: false },
      { region: null, count: null, withheld: true },
    ]);
  });

  it('hides last365Days when it would reveal a small number of earlier joiners', () => {
    // 48 of 50 joined within a year: total − last365 would single out 2 members.
    const stats = memberStatistics(
      counts({ total: 50, joinedByDay: { '2026-11-10': 20, '2026-03-01': 28, '2020-01-01': 2 } }),
      K,
      NOW,
    );
    expect(stats.total.count).toBe(50);
    expect(stats.joined.last365Days).toEqual({ count: null, withheld: true });
    expect(stats.joined.last30Days).toEqual({ count: null, withheld: true });
  });

  it('hides one of the windows when their difference is a small group', () => {
    // last365 − last30 = 2
    const stats = memberStatistics(
      counts({ total: 100, joinedByDay: { '2026-11-15': 10, '2026-05-01': 2 } }),
      K,
      NOW,
    );
    expect(stats.joined.last30Days.withheld).toBe(true);
    expect(stats.joined.last365Days).toEqual({ count: 12, withheld: false });
  });

  it('places joins in UTC calendar-day windows, today and tomorrow included', () => {
    const stats = memberStatistics(
      counts({
        total: 40,
        joinedByDay: { '2026-11-23': 5, '2026-10-24': 5, '2026-10-23': 5, '2025-11-23': 5, '2025-11-22': 20 },
      }),
      K,
      NOW,
    );
    // 2026-10-24 is the 30th day back, 2025-11-23 the 365th; the day before each is outside.
    expect(stats.joined.last30Days).toEqual({ count: 10, withheld: false });
    expect(stats.joined.last365Days).toEqual({ count: 20, withheld: false });
  });

  it('is as of the last change: the last write, or the start of today when the windows last moved', () => {
    expect(memberStatistics(counts({ updatedAt: '2026-11-01T08:00:00.000Z' }), K, NOW).asOf).toBe(
      '2026-11-22T00:00:00.000Z',
    );
    expect(memberStatistics(counts({}), K, NOW).asOf).toBe('2026-11-22T00:00:00.000Z');
    // Two reads of unchanged figures are identical (and so is their ETag).
    const c = counts({ total: 7, byMembershipType: { a: 7 }, updatedAt: '2026-11-22T09:59:00.000Z' });
    expect(memberStatistics(c, K, NOW)).toEqual(memberStatistics(c, K, new Date('2026-11-22T23:59:59.999Z')));
  });

  it('never publishes figures from which a small group can be worked out (500 random organisations)', () => {
    const next = random(7);
    for (let run = 0; run < 500; run++) {
      const k = 2 + Math.floor(next() * 6);
      const parts = [0, 1, 2].map(() =>
        next() < 0.25 ? Math.floor(next() * k) : Math.floor(next() * 4 * k),
      );
      const [recent = 0, year = 0, earlier = 0] = parts;
      const total = recent + year + earlier;
      const stats = memberStatistics(
        counts({ total, joinedByDay: { '2026-11-21': recent, '2026-02-01': year, '2019-05-05': earlier } }),
        k,
        NOW,
      );
      const l30 = value(stats.joined.last30Days);
      const l365 = value(stats.joined.last365Days);
      const t = value(stats.total);
      // Every quantity an attacker can compute from the published figures, by subtraction.
      const derivable: (number | null)[] = [l30, l365, t];
      if (l30 !== null && l365 !== null) derivable.push(l365 - l30);
      if (l365 !== null && t !== null) derivable.push(t - l365);
      if (l30 !== null && t !== null) derivable.push(t - l30);
      for (const quantity of derivable) {
        if (quantity === null) continue;
        expect(quantity === 0 || quantity >= k, `parts ${parts} k=${k}: ${quantity}`).toBe(true);
      }
    }
  });
});

describe('minimumGroupSizeFrom', () => {
  it('defaults to 5 and accepts whole numbers from 2 to 100', () => {
    expect(minimumGroupSizeFrom(undefined)).toBe(5);
    expect(minimumGroupSizeFrom('')).toBe(5);
    expect(minimumGroupSizeFrom('10')).toBe(10);
  });

  it.each(['1', '0', '-3', '2.5', 'ten', '101'])(
    'refuses %s, which would weaken or break the protection',
    (value) => {
      expect(() => minimumGroupSizeFrom(value)).toThrow(/minimum group size/);
    },
  );
});
