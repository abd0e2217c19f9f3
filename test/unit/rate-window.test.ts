import { describe, expect, it } from 'vitest';
import { rateLimitFor, STANDARD_RATE_LIMIT } from '../../shared/domain/organisation.js';
import { rateWindowAt } from '../../shared/domain/rate-window.js';

describe('rate window', () => {
  it('starts on the minute and counts down to the next', () => {
    const at = Date.UTC(2026, 10, 22, 10, 0, 15, 500);
    const window = rateWindowAt(at);
    expect(window.start).toBe(Date.UTC(2026, 10, 22, 10, 0, 0) / 1000);
    expect(window.resetSeconds).toBe(45);
    expect(window.expiresAt).toBeGreaterThan(window.start + 60);
  });

  it('never says 0 seconds until reset', () => {
    expect(rateWindowAt(Date.UTC(2026, 0, 1, 0, 0, 59, 999)).resetSeconds).toBe(1);
    expect(rateWindowAt(Date.UTC(2026, 0, 1, 0, 1, 0, 0)).resetSeconds).toBe(60);
  });
});

describe('rate limit by tier', () => {
  it('gives standard organisations the default of 60', () => {
    expect(STANDARD_RATE_LIMIT).toBe(60);
    expect(rateLimitFor('standard')).toBe(60);
    expect(rateLimitFor('enterprise')).toBe(60);
  });

  it('lets only the enterprise tier have its own value', () => {
    expect(rateLimitFor('enterprise', 600)).toBe(600);
    expect(() => rateLimitFor('standard', 600)).toThrow(/enterprise/);
    expect(() => rateLimitFor('enterprise', 0)).toThrow();
    expect(() => rateLimitFor('enterprise', 1.5)).toThrow();
  });
});
