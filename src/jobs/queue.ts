import { Prisma, type SqlClient } from '../db/prisma';
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
 * The call of `graphile_worker.add_job` that enqueues this job, to put in a statement that does
 * more (its row is the job's): the job exists exactly when that statement's change commits. The
 * payload is checked against the job's definition at compile time.
 */
export function addJobCall<P>(job: JobDefinition<P>, payload: P, options: JobOptions = {}): Prisma.Sql {
  return Prisma.sql`graphile_worker.add_job(
    identifier => ${job.name}::text,
    payload => ${JSON.stringify(payload)}::json,
    job_key => ${options.jobKey ?? null}::text,
    run_at => ${options.runAt ?? null}::timestamptz,
    max_attempts => ${options.maxAttempts ?? job.maxAttempts ?? null}::int,
    job_key_mode => ${options.jobKeyMode ?? 'replace'}::text
  )`;
}

/** When enqueueJob's job runs: at `runAt` (or now), and whether it only brings a waiting job forward. */
export interface EnqueueWhen {
  runAt?: Date;
  onlyMovingUp?: boolean;
}

/**
 * Enqueues a graphile-worker job on whatever client is given: pass the transaction's client so the
 * job exists exactly when the change that caused it commits. `onlyMovingUp`: only brings a job
 * that waits under `jobKey` to run later forward to `runAt` (or now); a job a worker runs is left
 * to it (enqueueing under its key would retire it, with no retry left).
 */
export async function enqueueJob<P>(
  client: SqlClient,
  job: JobDefinition<P>,
  payload: P,
  options: JobOptions & EnqueueWhen = {},
): Promise<void> {
  const { onlyMovingUp, jobKey, runAt } = options;
  const moves = onlyMovingUp && jobKey ? jobWaitingCondition(jobKey, runAt ?? new Date()) : Prisma.sql`true`;
  await client.$executeRaw`SELECT ${addJobCall(job, payload, options)} WHERE ${moves}`;
}

/**
 * The call that removes a pending job by its key (a job already running is left to finish):
 * graphile_worker.remove_job through laurel_remove_job, whose plans read the key's index however
 * the queue's size has changed since they were made (the migration job_key_lookups_by_index).
 */
export function removeJobCall(jobKey: string): Prisma.Sql {
  return Prisma.sql`laurel_remove_job(${jobKey}::text)`;
}

/**
 * True (in SQL) when the job with this key waits to run at `notBefore` or later, not locked by a
 * worker: a job that will run after whatever the caller's statement commits. A function, for the
 * same reason as removeJobCall: inlined in a caller's prepared statement, the lookup kept the plan
 * made on a drained queue and read every queued job.
 */
export function jobWaitingCondition(jobKey: string, notBefore: Date): Prisma.Sql {
  return Prisma.sql`laurel_job_waiting(${jobKey}::text, ${notBefore}::timestamptz)`;
}

/** Removes a pending job by its key (a job already running is left to finish). */
export async function removeJob(client: SqlClient, jobKey: string): Promise<void> {
  await client.$executeRaw`SELECT ${removeJobCall(jobKey)}`;
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
