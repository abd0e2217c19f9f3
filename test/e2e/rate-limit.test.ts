import { describe, expect, it } from 'vitest';
import { WINDOW_SECONDS } from '../../shared/domain/rate-window.js';
import { call, newOrganisation, newToken, problemOf } from '../support/api.js';

/**
 * Windows are fixed minutes of the wall clock. A run that starts late in a minute would see its budget
 * renewed halfway, so it waits for the next window: then every request below falls in one window.
 */
async function freshWindow(neededSeconds = 20): Promise<void> {
  const intoWindow = (Date.now() / 1000) % WINDOW_SECONDS;
  if (WINDOW_SECONDS - intoWindow >= neededSeconds) return;
  await new Promise((resolve) => setTimeout(resolve, (WINDOW_SECONDS - intoWindow) * 1000 + 200));
}

function budgetOf(response: Response) {
  return {
    status: response.status,
    limit: response.headers.get('ratelimit-limit'),
    remaining: response.headers.get('ratelimit-remaining'),
  };
}

describe('the per-token rate limit, through the API', () => {
  it('admits 60 requests a minute with the budget counting down, and refuses the 61st with 429', async () => {
    const org = await newOrganisation();
    expect(org.rateLimitPerMinute).toBe(60);
    const limited = await newToken(org.id, 'read');
    const sibling = await newToken(org.id, 'read');
    const stranger = await newToken((await newOrganisation()).id, 'read');
    await freshWindow();

    const seen: ReturnType<typeof budgetOf>[] = [];
    for (let i = 0; i < 60; i++) {
      const response = await call('/ping', { token: limited.token });
      seen.push(budgetOf(response));
      await response.body?.cancel();
    }
    expect(seen).toEqual(
      Array.from({ length: 60 }, (_, i) => ({ status: 200, limit: '60', remaining: String(59 - i) })),
    );

    const refused = await call('/ping', { token: limited.token });
    expect(budgetOf(refused)).toEqual({ status: 429, limit: '60', remaining: '0' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(refused.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    await problemOf(refused, 429, 'rate_limited');

    // A refused request costs nothing more and stays refused until the window turns.
    const again = await call('/ping', { token: limited.token });
    expect(budgetOf(again)).toEqual({ status: 429, limit: '60', remaining: '0' });
    await again.body?.cancel();

    // The budget is the token's: another token of the same organisation, and another
    // organisation's, start their own count.
    for (const other of [sibling, stranger]) {
      const response = await call('/ping', { token: other.token });
      expect(budgetOf(response)).toEqual({ status: 200, limit: '60', remaining: '59' });
      await response.body?.cancel();
    }
  });

  it("applies an enterprise organisation's own limit", async () => {
    const org = await newOrganisation('--tier', 'enterprise', '--rate-limit', '3');
    expect(org.rateLimitPerMinute).toBe(3);
    const { token } = await newToken(org.id);
    await freshWindow(10);
    const seen: ReturnType<typeof budgetOf>[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await call('/ping', { token });
      seen.push(budgetOf(response));
      if (response.status === 429) await problemOf(response, 429, 'rate_limited');
      else await response.body?.cancel();
    }
    expect(seen).toEqual([
      { status: 200, limit: '3', remaining: '2' },
      { status: 200, limit: '3', remaining: '1' },
      { status: 200, limit: '3', remaining: '0' },
      { status: 429, limit: '3', remaining: '0' },
    ]);
  });
});
