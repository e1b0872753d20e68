/**
 * Laurel's own request budget towards one RPC provider: a token bucket refilled at `perSecond`
 * tokens a second, holding at most one second's worth (bursts up to `perSecond` calls). Each
 * JSON-RPC call costs a token (a batch of n calls costs n). Taking tokens reserves them at once, so
 * the bucket may go below zero: the calls after it wait their turn.
 *
 * Written here rather than taken from rate-limiter-flexible, bottleneck or p-throttle: routing needs
 * to ask "how long until this provider could take n calls?" of every provider without consuming
 * anything, then reserve on the one chosen; those libraries count in fixed windows (bursts of twice
 * the rate at a window's edge) and either reject or queue, without that question.
 */
export class RequestRate {
  private tokens: number;
  private updatedAt: number;

  constructor(
    readonly perSecond: number,
    now = Date.now(),
  ) {
    this.tokens = perSecond;
    this.updatedAt = now;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.updatedAt) * this.perSecond) / 1000);
    this.updatedAt = now;
  }

  /** Milliseconds until `cost` calls may go out (0: now). A cost above the burst waits for a full bucket. */
  waitFor(cost: number, now = Date.now()): number {
    this.refill(now);
    const needed = Math.min(cost, this.perSecond);
    return this.tokens >= needed ? 0 : Math.ceil(((needed - this.tokens) * 1000) / this.perSecond);
  }

  /** Reserves `cost` calls; returns how long to wait before sending them. */
  take(cost: number, now = Date.now()): number {
    const wait = this.waitFor(cost, now);
    this.tokens -= cost;
    return wait;
  }
}
