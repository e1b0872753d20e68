import type { Prisma, PrismaClient } from '../db/prisma';

type SqlClient = PrismaClient | Prisma.TransactionClient;

export interface JobOptions {
  /** Dedupes: a job with the same key replaces the pending one. */
  jobKey?: string;
  runAt?: Date;
  maxAttempts?: number;
}

/**
 * Enqueues a graphile-worker job through `graphile_worker.add_job`, on whatever client is given:
 * pass the transaction's client so the job exists exactly when the change that caused it commits.
 */
export async function enqueueJob(
  client: SqlClient,
  task: string,
  payload: Record<string, unknown>,
  options: JobOptions = {},
): Promise<void> {
  await client.$executeRaw`SELECT graphile_worker.add_job(
    identifier => ${task}::text,
    payload => ${JSON.stringify(payload)}::json,
    job_key => ${options.jobKey ?? null}::text,
    run_at => ${options.runAt ?? null}::timestamptz,
    max_attempts => ${options.maxAttempts ?? null}::int
  )`;
}

/** Removes a pending job by its key (a job already running is left to finish). */
export async function removeJob(client: SqlClient, jobKey: string): Promise<void> {
  await client.$executeRaw`SELECT graphile_worker.remove_job(${jobKey}::text)`;
}
