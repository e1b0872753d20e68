import type { Config } from '../config';
import { databaseUnavailableReason } from '../db/availability';
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
  // Every pending transaction's receipt is asked of its chain now: those whose receipt the outage
  // kept from being recorded are recorded (with their events) at once, not at their job's backoff.
  const followAllPending = () =>
    enqueueJob(deps.prisma, jobs.trackPending, { all: true }, { jobKey: jobs.trackPending.name });
  const worker = await startJobWorker({
    databaseUrl: deps.sessionUrl,
    concurrency: config.workerConcurrency,
    poolSize: config.workerPoolSize,
    log: deps.log.child({ component: 'worker' }),
    taskList: createTaskList(deps.tasks),
    crontab,
    metrics: deps.metrics,
    goneAfterSeconds: config.workerGoneAfterSeconds,
    onDatabaseBack: followAllPending,
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
  // Enqueues the first attempts of webhook deliveries whose process died, and follows every pending
  // transaction (see the tasks), without waiting for the crontab. A database that refuses writes
  // (read-only) or went away meanwhile leaves both to the crontab: the process starts and serves
  // what it can.
  await Promise.all([
    enqueueJob(deps.prisma, jobs.recoverDeliveries, {}, { jobKey: jobs.recoverDeliveries.name }),
    followAllPending(),
  ]).catch((error: unknown) => {
    const reason = databaseUnavailableReason(error);
    if (reason === null) throw error;
    deps.log.warn({ reason }, 'database unavailable: the jobs of the start are left to the crontab');
  });
  progress(`worker      graphile-worker, concurrency ${config.workerConcurrency}`);
}
