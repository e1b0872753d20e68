/**
 * The wait before retry `attempt` (0: the first) of something retried with doubling waits:
 * `firstMs`, twice that, four times… at most `maxMs`.
 */
export function doublingDelayMs(attempt: number, firstMs: number, maxMs: number): number {
  // Past 2^30 every wait is the longest; the bound keeps the power finite.
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(0, attempt), 30));
}
