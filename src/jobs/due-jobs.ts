import type { WorkerEvents, WorkerPool } from 'graphile-worker';
import type { Pool } from 'pg';
import { databaseUnavailableReason } from '../db/availability';
import type { ThrottledLog } from '../logger';
import { repeatEvery } from '../repeat-every';

/**
 * Jobs that a worker could take now, up to `$1`: available, due, and not in a named queue that a
 * running job holds. It reads `jobs_main_index` (available jobs by priority and run_at) as
 * graphile-worker's own fetch does.
 */
const DUE_JOBS = `
  SELECT count(*)::int AS due FROM (
    SELECT 1 FROM graphile_worker._private_jobs j
     WHERE j.is_available AND j.run_at <= now()
       AND (j.job_queue_id IS NULL OR EXISTS (
             SELECT 1 FROM graphile_worker._private_job_queues q
              WHERE q.id = j.job_queue_id AND q.is_available))
     LIMIT $1) due`;

/**
 * Wakes idle workers of a graphile-worker pool when jobs fall due.
 *
 * A new job wakes a worker at once (graphile-worker LISTENs for inserts). A job that falls due
 * later (a retry's backoff, a scheduled check, a job freed by WorkerSessions) is found by polling,
 * and graphile-worker 0.17 without `localQueue` has each idle worker poll on its own: one fetch per
 * worker per poll interval, 32 a second at WORKER_CONCURRENCY 32 and a 1 s interval. Here one
 * query per interval counts the due jobs and wakes as many idle workers (`WorkerPool.nudge`); the
 * workers' own polling is a slow fallback.
 */
export class DueJobWakeups {
  private workerPool: WorkerPool | null = null;
  private looks: { stop(): void } | null = null;

  constructor(
    private readonly options: {
      pool: Pool;
      /** The events of the runner whose workers it wakes (graphile-worker's `events` option). */
      events: WorkerEvents;
      intervalMs: number;
      /** Workers of the runner: no more are woken at once. */
      concurrency: number;
      faults: ThrottledLog;
    },
  ) {
    options.events.on('pool:create', ({ workerPool }) => {
      this.workerPool = workerPool;
    });
    // A pool shutting down (a stop, a breaking migration) takes no nudge; nor after stop().
    for (const event of ['pool:gracefulShutdown', 'pool:forcefulShutdown', 'pool:release'] as const) {
      options.events.on(event, () => (this.workerPool = null));
    }
  }

  start(): void {
    this.looks = repeatEvery(this.options.intervalMs, () => this.wake());
  }

  stop(): void {
    this.workerPool = null;
    this.looks?.stop();
  }

  private async wake(): Promise<void> {
    if (!this.workerPool) return;
    try {
      const { rows } = await this.options.pool.query<{ due: number }>(DUE_JOBS, [this.options.concurrency]);
      const due = rows[0]?.due ?? 0;
      // Busy workers fetch again when their job ends: nudge passes over them.
      if (due > 0) this.workerPool?.nudge(due);
    } catch (error) {
      // Logged with the workers' own failures, once per interval; the next look tries again.
      const unavailable = databaseUnavailableReason(error);
      if (unavailable !== null) {
        this.options.faults.write(
          'warn',
          'database_unavailable',
          { reason: unavailable },
          'database unavailable: looking for due jobs',
        );
        return;
      }
      this.options.faults.write(
        'warn',
        'due_jobs',
        { err: (error as Error).message },
        'job worker: could not look for due jobs',
      );
    }
  }
}
