import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_DELAYS,
  MAX_DELIVERY_ATTEMPTS,
  MAX_VISIBILITY_SECONDS,
  nextRetryDelay,
  parseRetryAfter,
  parseRetryDelays,
} from '../../shared/domain/retry-schedule.js';

const middle = () => 0.5;
const lowest = () => 0;
const highest = () => 0.999_999;

describe('the default schedule', () => {
  it('is 30 s × 5ⁿ for the five retries of six attempts', () => {
    expect(DEFAULT_RETRY_DELAYS).toEqual([30, 150, 750, 3750, 18_750]);
    expect(DEFAULT_RETRY_DELAYS.length + 1).toBe(MAX_DELIVERY_ATTEMPTS);
    const delays = [1, 2, 3, 4, 5].map((attempt) => nextRetryDelay({ attempt }, { random: middle }));
    expect(delays).toEqual([30, 150, 750, 3750, 18_750]);
  });

  it('has no retry after the sixth attempt', () => {
    expect(nextRetryDelay({ attempt: 6 }, { random: middle })).toBeUndefined();
    expect(nextRetryDelay({ attempt: 7 }, { random: middle })).toBeUndefined();
    expect(nextRetryDelay({ attempt: 0 }, { random: middle })).toBeUndefined();
  });

  it('jitters each delay by at most 20 % either way', () => {
    expect(nextRetryDelay({ attempt: 1 }, { random: lowest })).toBe(24);
    expect(nextRetryDelay({ attempt: 1 }, { random: highest })).toBe(36);
    expect(nextRetryDelay({ attempt: 5 }, { random: lowest })).toBe(15_000);
    expect(nextRetryDelay({ attempt: 5 }, { random: highest })).toBe(22_500);
    for (let i = 0; i < 1000; i++) {
      const delay = nextRetryDelay({ attempt: 2 }) ?? 0;
      expect(delay).toBeGreaterThanOrEqual(120);
      expect(delay).toBeLessThanOrEqual(180);
    }
  });

  it('spreads delays instead of repeating one value', () => {
    const seen = new Set(Array.from({ length: 200 }, () => nextRetryDelay({ attempt: 3 })));
    expect(seen.size).toBeGreaterThan(20);
  });

  it('never exceeds 12 h nor goes below one second', () => {
    const delays = [1, 1, 1, 1, MAX_VISIBILITY_SECONDS];
    expect(nextRetryDelay({ attempt: 5 }, { delays, random: highest })).toBe(MAX_VISIBILITY_SECONDS);
    expect(nextRetryDelay({ attempt: 1 }, { delays, random: lowest })).toBe(1);
  });
});

describe('WEBHOOK_RETRY_DELAYS', () => {
  it('replaces the base delays', () => {
    expect(parseRetryDelays('1,2,3,4,5')).toEqual([1, 2, 3, 4, 5]);
    expect(parseRetryDelays(' 10, 20 ,30,40,50 ')).toEqual([10, 20, 30, 40, 50]);
    expect(nextRetryDelay({ attempt: 3 }, { delays: parseRetryDelays('1,2,3,4,5'), random: middle })).toBe(3);
  });

  it('keeps the default when unset or empty', () => {
    expect(parseRetryDelays(undefined)).toBe(DEFAULT_RETRY_DELAYS);
    expect(parseRetryDelays('')).toBe(DEFAULT_RETRY_DELAYS);
  });

  it.each([
    ['1,2,3,4'],
    ['1,2,3,4,5,6'],
    ['1,2,x,4,5'],
    ['1,2,-3,4,5'],
    ['1,2,0,4,5'],
    ['1,2,3.5,4,5'],
    ['1,2,3,4,43201'],
    ['1,,3,4,5'],
  ])('refuses %s with a message naming the setting', (value) => {
    expect(() => parseRetryDelays(value)).toThrow(
      /WEBHOOK_RETRY_DELAYS must be 5 comma-separated whole seconds/,
    );
  });
});

describe('Retry-After', () => {
  const now = new Date('2026-11-22T10:00:00Z');
  const on503 = (retryAfter: string, attempt = 1, delays?: number[]) =>
    nextRetryDelay(
      { attempt, statusCode: 503, retryAfter },
      { now, random: middle, ...(delays ? { delays } : {}) },
    );

  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:02:00 GMT', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('is honoured on 429 and 503 within the schedule’s smallest and largest delay', () => {
    expect(on503('600')).toBe(600);
    expect(nextRetryDelay({ attempt: 1, statusCode: 429, retryAfter: '600' }, { now })).toBe(600);
    expect(on503('5')).toBe(30);
    expect(on503('0')).toBe(30);
    expect(on503('1000000')).toBe(18_750);
    expect(on503('Sun, 22 Nov 2026 11:00:00 GMT', 4)).toBe(3600);
    expect(on503('60', 1, [1, 1, 1, 1, 1])).toBe(1);
  });

  it('never makes a wait longer than 12 h', () => {
    expect(on503('999999', 1, [1, 2, 3, 4, MAX_VISIBILITY_SECONDS])).toBe(MAX_VISIBILITY_SECONDS);
  });

  it('is ignored on other statuses, when unreadable, and after the last attempt', () => {
    expect(nextRetryDelay({ attempt: 1, statusCode: 500, retryAfter: '600' }, { now, random: middle })).toBe(
      30,
    );
    expect(on503('later')).toBe(30);
    expect(on503('600', 6)).toBeUndefined();
  });
});
