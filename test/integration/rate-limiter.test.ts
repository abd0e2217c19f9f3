import { beforeAll, describe, expect, it } from 'vitest';
import { consumeRequest } from '../../shared/adapters/rate-limiter.js';
import { useFreshTable } from '../support/table.js';

beforeAll(async () => {
  await useFreshTable();
});

describe('the per-token rate limiter', () => {
  it('admits exactly 60 of 100 concurrent requests on a limit of 60', async () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 10);
    const decisions = await Promise.all(
      Array.from({ length: 100 }, () => consumeRequest('tok_concurrent', 60, now)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0)).toBe(true);
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining);
    expect(new Set(remaining).size).toBe(60);
    expect(Math.min(...remaining)).toBe(0);
  });

  it('counts each token separately and starts again in the next window', async () => {
    const now = Date.UTC(2026, 10, 22, 12, 5, 59);
    for (let i = 0; i < 3; i++) await consumeRequest('tok_a', 3, now);
    expect((await consumeRequest('tok_a', 3, now)).allowed).toBe(false);
    expect((await consumeRequest('tok_b', 3, now)).allowed).toBe(true);
    const next = await consumeRequest('tok_a', 3, now + 1000);
    expect(next).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  });

  it('reports the limit, what is left and the seconds until reset', async () => {
    const decision = await consumeRequest('tok_headers', 10, Date.UTC(2026, 10, 22, 12, 7, 45));
    expect(decision).toEqual({ allowed: true, limit: 10, remaining: 9, resetSeconds: 15 });
  });
});
