/**
 * Keeping one slow or unresponsive endpoint from taking every delivery slot. What a delivery slot
 * runs out of is time: an attempt that takes long (a slow answer, or none until the 10 s timeout)
 * is a strike against its endpoint, whatever its status; after a few strikes in a row the endpoint
 * is limited: only a few of its attempts may be under way at once, and its other deliveries go back
 * to the queue for a few seconds, without spending one of their six attempts. The first quick answer
 * lifts the limit. An endpoint that fails quickly (503, connection refused) holds a slot for
 * milliseconds and its retries are spread by the backoff, so it is not limited. A healthy endpoint
 * never has strikes, so it pays no write for this.
 */
export const ENDPOINT_PACE = {
  /** An attempt that takes this long is a strike, 2xx or not: it held a slot that long. */
  slowAttemptMs: 2000,
  /** Strikes in a row after which the endpoint is limited. */
  strikesToLimit: 3,
  /** The limit lapses this long after the last strike, if no success lifted it earlier. */
  limitedForMs: 60_000,
  /** A limited endpoint's attempts under way at once, across every delivery worker. */
  inFlightWhileLimited: 2,
  /** How long a delivery that found no free slot goes back to the queue: a range, so they spread out. */
  delaySeconds: { min: 5, max: 15 },
} as const;

/** What the table holds about one endpoint's recent attempts. */
export interface EndpointPace {
  /** Strikes in a row (0 after a quick answer). */
  strikes: number;
  /** Epoch milliseconds of the last strike. */
  lastStrikeAt: number;
}

export const UNSTRUCK: EndpointPace = { strikes: 0, lastStrikeAt: 0 };

export function isLimited(pace: EndpointPace, now: number): boolean {
  return pace.strikes >= ENDPOINT_PACE.strikesToLimit && now - pace.lastStrikeAt < ENDPOINT_PACE.limitedForMs;
}

/** An attempt that held its slot long: a slow answer of any status, or a timeout. */
export function isStrike(result: { latencyMs: number }): boolean {
  return result.latencyMs >= ENDPOINT_PACE.slowAttemptMs;
}

/** Whole seconds (SQS's DelaySeconds) within the range; `random` in [0, 1). */
export function delayWhileLimited(random: number = Math.random()): number {
  const { min, max } = ENDPOINT_PACE.delaySeconds;
  return min + Math.floor(random * (max - min + 1));
}
