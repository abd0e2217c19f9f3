import { describe, expect, it } from 'vitest';
import { delayWhileLimited, ENDPOINT_PACE, isLimited, isStrike } from '../../shared/domain/endpoint-pace.js';

describe('endpoint pace', () => {
  it('counts an attempt that held its slot long as a strike, whatever its answer; a quick failure is not one', () => {
    expect(isStrike({ latencyMs: ENDPOINT_PACE.slowAttemptMs })).toBe(true);
    expect(isStrike({ latencyMs: 10_000 })).toBe(true);
    expect(isStrike({ latencyMs: ENDPOINT_PACE.slowAttemptMs - 1 })).toBe(false);
  });

  it('limits an endpoint from its third strike in a row until the limit lapses', () => {
    const at = 1_000_000;
    expect(isLimited({ strikes: ENDPOINT_PACE.strikesToLimit - 1, lastStrikeAt: at }, at)).toBe(false);
    expect(isLimited({ strikes: ENDPOINT_PACE.strikesToLimit, lastStrikeAt: at }, at)).toBe(true);
    expect(
      isLimited(
        { strikes: ENDPOINT_PACE.strikesToLimit, lastStrikeAt: at },
        at + ENDPOINT_PACE.limitedForMs - 1,
      ),
    ).toBe(true);
    expect(
      isLimited({ strikes: ENDPOINT_PACE.strikesToLimit, lastStrikeAt: at }, at + ENDPOINT_PACE.limitedForMs),
    ).toBe(false);
  });

  it('sends a delivery back for whole seconds within the range, spread across it', () => {
    const { min, max } = ENDPOINT_PACE.delaySeconds;
    expect(delayWhileLimited(0)).toBe(min);
    expect(delayWhileLimited(0.999_999)).toBe(max);
    for (const random of [0.1, 0.5, 0.9]) {
      const seconds = delayWhileLimited(random);
      expect(Number.isInteger(seconds) && seconds >= min && seconds <= max).toBe(true);
    }
  });
});
