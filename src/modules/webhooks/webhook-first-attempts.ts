import type { Logger } from '../../logger';
import type { WebhookDeliverer } from './webhook-deliverer';

/**
 * First attempts of webhook deliveries made by the process that recorded their event, right after
 * its commit, instead of by a job each: a graphile-worker job (added, fetched, completed) costs
 * more than the call and its record together (bench:flow in docs/benchmarks.md). The statement that
 * records the event asks for `leaseSeconds()`; the deliveries then carry that lease
 * (`first_attempt_until`) and no job. A failed first attempt schedules its retry as a job, as any
 * attempt does. If this process stops or dies before recording an attempt, the lease runs out and
 * webhook_deliveries__recover enqueues the delivery's job. At most `limit` attempts run at once;
 * past it (or with a limit of 0, or once stopping) events get their jobs as before.
 */
export class FirstAttempts {
  private readonly running = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly deliverer: Pick<WebhookDeliverer, 'firstAttempt'>,
    private readonly options: { limit: number; leaseSeconds: number; log: Logger },
  ) {}

  /** The lease to give an event's deliveries now, or null: enqueue their jobs. */
  leaseSeconds(): number | null {
    return !this.stopping && this.running.size < this.options.limit ? this.options.leaseSeconds : null;
  }

  /** Starts the first attempts of deliveries recorded with a lease of leaseSeconds(). */
  start(deliveryIds: readonly bigint[]): void {
    for (const id of deliveryIds) {
      const attempt = this.deliverer
        .firstAttempt(id)
        .catch((error: unknown) =>
          // The lease runs out and the delivery's job makes the attempt.
          this.options.log.warn(
            { err: error, deliveryId: id.toString() },
            'first webhook attempt failed before it was recorded; its job will make it',
          ),
        )
        .finally(() => this.running.delete(attempt));
      this.running.add(attempt);
    }
  }

  /** No new first attempts; waits for those under way (each call has its deadline). */
  async stop(): Promise<void> {
    this.stopping = true;
    while (this.running.size) await Promise.allSettled([...this.running]);
  }
}
