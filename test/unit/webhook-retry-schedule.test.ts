import { retryDelayMs, WEBHOOK_MAX_ATTEMPTS } from '../../src/modules/webhooks/webhook-retry-schedule';
import { parseRetryAfter } from '../../src/outbound-https';

const MINUTE = 60_000;
const low = () => 0;
const high = () => 1; // the upper bound (Math.random stays below it)

describe('webhook retry schedule', () => {
  it('waits about 1, 4, 16 and 64 minutes with the default base, ±25 %', () => {
    const steps = [1, 2, 3, 4].map((attempt) => [
      retryDelayMs(attempt, MINUTE, null, low),
      retryDelayMs(attempt, MINUTE, null, high),
    ]);
    expect(steps).toEqual([
      [0.75 * MINUTE, 1.25 * MINUTE],
      [3 * MINUTE, 5 * MINUTE],
      [12 * MINUTE, 20 * MINUTE],
      [48 * MINUTE, 80 * MINUTE],
    ]);
  });

  it('spreads the five attempts over at least an hour, so a short outage never deactivates', () => {
    const shortest = [1, 2, 3, 4].reduce((sum, attempt) => sum + retryDelayMs(attempt, MINUTE, null, low), 0);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(5);
    expect(shortest).toBeGreaterThanOrEqual(60 * MINUTE);
    // Even when the receiver is down from the first attempt on, the third comes after 2 minutes.
    expect(retryDelayMs(1, MINUTE, null, low) + retryDelayMs(2, MINUTE, null, low)).toBeGreaterThan(
      2 * MINUTE,
    );
  });

  it('honours a longer Retry-After, up to the longest step of the schedule', () => {
    expect(retryDelayMs(1, MINUTE, 600, low)).toBe(10 * MINUTE);
    expect(retryDelayMs(1, MINUTE, 5, low)).toBe(0.75 * MINUTE);
    expect(retryDelayMs(1, MINUTE, 86_400, low)).toBe(64 * MINUTE);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
