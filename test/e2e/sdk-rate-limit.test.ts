import { describe, expect, it } from 'vitest';
import { ApiError } from '../../sdk/src/index.js';
import { incidentFields, newOrganisation, newToken } from '../support/api.js';
import { rejectionOf, sdkClient } from '../support/sdk.js';

/**
 * The SDK's 429 handling against the stack's real rate limit: an organisation allowed 2 requests a
 * minute (windows are wall-clock minutes, so a wait is at most one window).
 */
async function exhaustedToken() {
  const org = await newOrganisation('--tier', 'enterprise', '--rate-limit', '2');
  const { token } = await newToken(org.id);
  const { client } = sdkClient(token, { retry: { maxAttempts: 1 } });
  // Spend the window's budget; the first 429 proves it is spent.
  for (;;) {
    const refused = await client.GET('/ping').then(
      () => undefined,
      (error: unknown) => error,
    );
    if (refused instanceof ApiError && refused.status === 429) return token;
    if (refused) throw refused;
  }
}

describe('the SDK client under the rate limit', () => {
  it('throws the 429 at once when its Retry-After is beyond maxWaitMs, or when no attempt is left', async () => {
    const token = await exhaustedToken();
    for (const retry of [{ maxWaitMs: 0 }, { maxAttempts: 1 }]) {
      const { client, sent } = sdkClient(token, { retry });
      const error = await rejectionOf(client.GET('/ping'));
      expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(Number(error.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(sent.map((s) => s.status)).toEqual([429]);
    }
  });

  it('waits out Retry-After and retries a POST with the same Idempotency-Key, writing it once', async () => {
    const token = await exhaustedToken();
    const { client, sent } = sdkClient(token);
    const { data: incident, response } = await client.POST('/incidents', { body: incidentFields() as never });
    expect(response.status).toBe(201);
    expect(sent.map((s) => s.status)).toEqual([429, 201]);
    expect(sent[1]?.idempotencyKey).toBe(sent[0]?.idempotencyKey);
    expect(sent[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    // The organisation is new: one incident means the retried POST was written once (one request of the
    // new window's two, so the listing itself is not refused).
    const listed = [];
    for await (const item of client.paginate('/incidents')) listed.push(item.id);
    expect(listed).toEqual([incident.id]);
  }, 150_000);
});
