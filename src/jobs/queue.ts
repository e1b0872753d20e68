import type { SqlClient } from '../db/prisma';
import type { JobDefinition } from './jobs';

export interface JobOptions {
  /** Dedupes: a job with the same key replaces the pending one. */
  jobKey?: string;
  /**
   * graphile-worker's job_key_mode: `replace` (default) also moves a pending job's run time to
   * `runAt`; `preserve_run_at` keeps it (a burst of enqueues does not postpone the job).
   */
  jobKeyMode?: 'replace' | 'preserve_run_at';
  runAt?: Date;
  /** Default: the job definition's. */
  maxAttempts?: number;
}

/**
 * Enqueues a graphile-worker job through `graphile_worker.add_job`, on whatever client is given:
 * pass the transaction's client so the job exists exactly when the change that caused it commits.
 * The payload is checked against the job's definition at compile time.
 */
export async function enqueueJob<P>(
  client: SqlClient,
  job: JobDefinition<P>,
  payload: P,
  options: JobOptions = {},
): Promise<void> {
  await client.$executeRaw`SELECT graphile_worker.add_job(
    identifier => ${job.name}::text,
    payload => ${JSON.stringify(payload)}::json,
    job_key => ${options.jobKey ?? null}::text,
    run_at => ${options.runAt ?? null}::timestamptz,
    max_attempts => ${options.maxAttempts ?? job.maxAttempts ?? null}::int,
    job_key_mode => ${options.jobKeyMode ?? 'replace'}::text
  )`;
}

/** Removes a pending job by its key (a job already running is left to finish). */
export async function removeJob(client: SqlClient, jobKey: string): Promise<void> {
  await client.$executeRaw`SELECT graphile_worker.remove_job(${jobKey}::text)`;
}

/** Per task: jobs due and not locked by a worker, and how long the oldest of them has been due. */
export interface QueueDepth {
  task: string;
  runnable: number;
  oldestRunnableSeconds: number;
}

/** The queue's depth by task (graphile-worker's jobs view), for the metrics. */
export async function queueDepth(client: SqlClient): Promise<QueueDepth[]> {
  const rows = await client.$queryRaw<{ task: string; runnable: bigint; oldest: number | null }[]>`
    SELECT task_identifier AS task, count(*) AS runnable,
           extract(epoch FROM now() - min(run_at))::float8 AS oldest
    FROM graphile_worker.jobs
    WHERE run_at <= now() AND locked_at IS NULL AND attempts < max_attempts
    GROUP BY task_identifier`;
  return rows.map((row) => ({
    task: row.task,
    runnable: Number(row.runnable),
    oldestRunnableSeconds: Math.max(0, row.oldest ?? 0),
  }));
}
