import { Logger as WorkerLogger, parseCrontab, run, type Runner, type TaskList } from 'graphile-worker';
import type { Logger } from '../logger';
import { RetryLaterError } from './jobs';

export interface JobWorker {
  stop(): Promise<void>;
}

function workerLogger(log: Logger): WorkerLogger {
  return new WorkerLogger(() => (level, message, meta) => {
    // An expected retry (RetryLaterError) is routine: one debug line, no stack.
    if (meta?.error instanceof RetryLaterError) {
      log.debug(
        { job: (meta.job as { task_identifier?: string } | undefined)?.task_identifier },
        meta.error.message,
      );
      return;
    }
    // graphile-worker's info lines (connected, job completed) are routine: debug for Laurel.
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    log[method]({ worker: meta }, message);
  });
}

/**
 * Starts graphile-worker inside PostgreSQL: installs (or upgrades) its schema, then runs tasks.
 * Jobs survive crashes: a job whose worker died is retried after graphile-worker's lock timeout.
 */
export async function startJobWorker(options: {
  databaseUrl: string;
  concurrency: number;
  log: Logger;
  taskList: TaskList;
  crontab: string;
}): Promise<JobWorker> {
  const runner: Runner = await run({
    connectionString: options.databaseUrl,
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: options.taskList,
    parsedCronItems: parseCrontab(options.crontab),
    logger: workerLogger(options.log),
  });
  return { stop: () => runner.stop() };
}
