import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger';
import type { WebhookDeliverer } from './webhook-deliverer';

/**
 * The first wait before a first attempt that failed before its record (the database) is made
 * again; doubled each time up to MAX_RETRY_DELAY_MS, so that the attempt follows within a second
 * of the database being back (an outage lasts seconds; a try costs one refused connection).
 */
const FIRST_RETRY_DELAY_MS = 250;
const MAX_RETRY_DELAY_MS = 1000;

/**
 * First attempts of webhook deliveries made by the process that recorded their event, right after
 * its commit, instead of by a job each: a graphile-worker job (added, fetched, completed) costs
 * more than the call and its record together (bench:flow in docs/benchmarks.md). The statement that
 * records the event asks for `leaseSeconds()`; the deliveries then carry that lease
 * (`first_attempt_until`) and no job. A failed first attempt schedules its retry as a job, as any
 * attempt does. One that fails before it is recorded (the database went away) is made again, with
 * backoff up to a second, during the first half of its lease: the rest leaves room for a call and its record
 * before the lease ends. If this process stops or dies before recording an attempt, the lease
 * runs out and webhook_deliveries__recover enqueues the delivery's job. At most `limit` attempts
 * run at once; past it (or with a limit of 0, or once stopping) events get their jobs as before.
 */
export class FirstAttempts {
  private readonly running = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly deliverer: Pick<WebhookDeliverer, 'firstAttempt'>,
    private readonly options: { limit: number; leaseSeconds: number; log: Logger },
  ) {}

  /** The lease to give an event's deliveries now, or null: enqueue their jobs. */
  leaseSeconds(): number | null {
    return !this.stopping.signal.aborted && this.running.size < this.options.limit
      ? this.options.leaseSeconds
      : null;
  }

  /** Starts the first attempts of deliveries recorded with a lease of leaseSeconds(). */
  start(deliveryIds: readonly bigint[]): void {
    const retryUntil = Date.now() + (this.options.leaseSeconds * 1000) / 2;
    for (const id of deliveryIds) {
      const attempt = this.attempt(id, retryUntil).finally(() => this.running.delete(attempt));
      this.running.add(attempt);
    }
  }

  /** No new first attempts, and no more tries of failed ones; waits for those under way (each call has its deadline). */
  async stop(): Promise<void> {
    this.stopping.abort();
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  private async attempt(id: bigint, retryUntil: number): Promise<void> {
    for (let delayMs = FIRST_RETRY_DELAY_MS; ; delayMs = Math.min(delayMs * 2, MAX_RETRY_DELAY_MS)) {
      try {
        await this.deliverer.firstAttempt(id);
        return;
      } catch (error) {
        const retries = !this.stopping.signal.aborted && Date.now() + delayMs < retryUntil;
        this.options.log.warn(
          { err: error, deliveryId: id.toString() },
          retries
            ? 'first webhook attempt failed before it was recorded; trying again'
            : 'first webhook attempt failed before it was recorded; its job will make it',
        );
        // Otherwise the lease runs out and the delivery's job makes the attempt.
        if (!retries) return;
        const waited = await sleep(delayMs, true, { signal: this.stopping.signal }).catch(() => false);
        if (!waited) return;
      }
    }
  }
}
