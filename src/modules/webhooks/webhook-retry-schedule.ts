/** Attempts of one delivery before the webhook is deactivated (the interface's "maximum retries (5)"). */
export const WEBHOOK_MAX_ATTEMPTS = 5;
/** Each retry waits this many times longer than the one before. */
const BACKOFF_FACTOR = 4;
/** Each delay is spread ±25 % so receivers coming back from an outage are not hit all at once. */
const JITTER = 0.25;

/**
 * How long to wait after failed attempt `attempt` (1-based) before the next one:
 * base × 4^(attempt−1), ±25 % jitter. With the default base of 60 s the retries come after about
 * 1, 4, 16 and 64 minutes, so the fifth and last attempt is 64 to 106 minutes after the first: a
 * receiver down for a few minutes is not switched off. A `Retry-After` (429/503) longer than the
 * computed delay is honoured, up to the schedule's longest step (base × 4³).
 */
export function retryDelayMs(
  attempt: number,
  baseMs: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number {
  const scheduled = baseMs * BACKOFF_FACTOR ** (attempt - 1) * (1 - JITTER + 2 * JITTER * random());
  if (retryAfterSeconds === null) return Math.round(scheduled);
  const longestStep = baseMs * BACKOFF_FACTOR ** (WEBHOOK_MAX_ATTEMPTS - 2);
  return Math.round(Math.max(scheduled, Math.min(retryAfterSeconds * 1000, longestStep)));
}
