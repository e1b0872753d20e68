import { Logger, runOnce } from 'graphile-worker';
import type { JobDefinition } from '../../src/jobs/jobs';
import { addJobCall, type JobOptions } from '../../src/jobs/queue';
import { createTaskList } from '../../src/jobs/tasks';
import type { TestLaurel } from './laurel';
import { waitUntil } from './wait';

const silent = new Logger(() => () => undefined);

/**
 * Runs every job that is due, once, with Laurel's real task list against the test database (start
 * the Laurel with `worker: false` so that its own worker does not take them first).
 */
export async function runDueJobs(laurel: TestLaurel): Promise<void> {
  await runOnce({
    connectionString: laurel.databaseUrl,
    taskList: createTaskList(laurel.tasks),
    logger: silent,
  });
}

/**
 * Enqueues one job, runs the due jobs, and returns once that job has run to completion, whoever ran
 * it: Laurel's own worker, when it has one, may take the job before runOnce sees it. Throws the
 * job's error when its attempt failed.
 */
export async function runJobOnce<P>(
  laurel: TestLaurel,
  job: JobDefinition<P>,
  payload: P,
  options: JobOptions = {},
): Promise<void> {
  const prisma = laurel.services.prisma;
  const [{ id }] = await prisma.$queryRaw<{ id: bigint }[]>`SELECT (${addJobCall(job, payload, options)}).id`;
  await runDueJobs(laurel);
  await waitUntil(`job ${job.name} #${id} to complete`, async () => {
    const [left] = await prisma.$queryRaw<{ last_error: string | null; locked_at: Date | null }[]>`
      SELECT last_error, locked_at FROM graphile_worker.jobs WHERE id = ${id}`;
    if (left?.last_error && !left.locked_at) throw new Error(`job ${job.name} failed: ${left.last_error}`);
    return left === undefined;
  });
}
