import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import { jobs } from '../jobs/jobs';
import { enqueueJob } from '../jobs/queue';
import { createTaskList, crontab, type TaskDeps } from '../jobs/tasks';
import { startJobWorker } from '../jobs/worker';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import { withinGrace, type Lifecycle } from './lifecycle';

/** The `worker` role: graphile-worker running Laurel's tasks (receipts, webhook deliveries, housekeeping). */
export async function startWorkerRole(
  config: Config,
  lifecycle: Lifecycle,
  /** `sessionUrl`: graphile-worker needs a session (LISTEN, prepared statements): DATABASE_DIRECT_URL. */
  deps: {
    sessionUrl: string;
    prisma: PrismaClient;
    log: Logger;
    tasks: TaskDeps;
    metrics: LaurelMetrics | null;
  },
  progress: (line: string) => void,
): Promise<void> {
  const worker = await startJobWorker({
    databaseUrl: deps.sessionUrl,
    concurrency: config.workerConcurrency,
    poolSize: config.workerPoolSize,
    log: deps.log.child({ component: 'worker' }),
    taskList: createTaskList(deps.tasks),
    crontab,
    metrics: deps.metrics,
  });
  // No new job is fetched; the jobs in flight finish before the pools they use close (each within
  // its own deadlines: RPC calls, webhook calls), however long past the grace: a job cut short
  // would use a pool after it ended.
  lifecycle.onStop('worker', async () => {
    const stopped = worker.stop();
    if (await withinGrace(stopped, config.shutdownGraceSeconds * 1000)) return;
    deps.log.warn('jobs still running at the end of the grace: waiting for them before the pools close');
    await stopped;
  });
  // Frees delivery jobs left locked by a worker that died mid-call, and follows the receipts of
  // execute-and-waits whose process died (see the tasks), without waiting for the crontab.
  for (const job of [jobs.recoverDeliveries, jobs.trackPending])
    await enqueueJob(deps.prisma, job, {}, { jobKey: job.name });
  progress(`worker      graphile-worker, concurrency ${config.workerConcurrency}`);
}
