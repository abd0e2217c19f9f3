export const TIERS = ['standard', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/** Spec section 8: 60 requests per minute per token unless the organisation is on the enterprise tier. */
export const STANDARD_RATE_LIMIT = 60;
export const MAX_RATE_LIMIT = 100_000;

export interface Organisation {
  id: string;
  name: string;
  tier: Tier;
  rateLimitPerMinute: number;
  createdAt: string;
}

/**
 * The limit an organisation's tokens get: its own for an enterprise organisation that has one, else
 * the standard. Only an own limit is stored, so a change of the standard applies to everyone on it.
 */
export function effectiveRateLimit(tier: Tier, own: number | undefined): number {
  return tier === 'enterprise' && own !== undefined ? own : STANDARD_RATE_LIMIT;
}

/** Standard organisations always get the default; only the enterprise tier has a configured value. */
export function rateLimitFor(tier: Tier, requested?: number): number {
  if (requested === undefined) return STANDARD_RATE_LIMIT;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_RATE_LIMIT) {
    throw new RangeError(`The rate limit must be a whole number from 1 to ${MAX_RATE_LIMIT}.`);
  }
  if (tier !== 'enterprise' && requested !== STANDARD_RATE_LIMIT) {
    throw new RangeError('Only an enterprise organisation can have its own rate limit.');
  }
  return requested;
}
