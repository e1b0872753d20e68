import { Logger, runOnce } from 'graphile-worker';
import type { JobDefinition } from '../../src/jobs/jobs';
import { enqueueJob, type JobOptions } from '../../src/jobs/queue';
import { createTaskList } from '../../src/jobs/tasks';
import type { TestLaurel } from './laurel';

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

/** Enqueues one job and runs the due jobs. */
export async function runJobOnce<P>(
  laurel: TestLaurel,
  job: JobDefinition<P>,
  payload: P,
  options: JobOptions = {},
): Promise<void> {
  await enqueueJob(laurel.services.prisma, job, payload, options);
  await runDueJobs(laurel);
}
