import { Logger as WorkerLogger, parseCrontab, run, type Runner, type TaskList } from 'graphile-worker';
import { Pool } from 'pg';
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
 * Jobs survive crashes: a job whose worker died is retried after graphile-worker's lock timeout
 * (webhook deliveries sooner, see webhook_deliveries__recover).
 *
 * The connection pool is Laurel's own: graphile-worker does not wait for the pool it creates to
 * close, and drops its error handler first, so a connection ended by the server meanwhile (a
 * database dropped or restarted just after the stop) would be an unhandled error. Here the pool
 * keeps its handlers and stop() waits until every connection is closed.
 */
export async function startJobWorker(options: {
  databaseUrl: string;
  concurrency: number;
  log: Logger;
  taskList: TaskList;
  crontab: string;
}): Promise<JobWorker> {
  const pgPool = new Pool({
    connectionString: options.databaseUrl,
    max: Math.max(10, options.concurrency + 2),
  });
  // Errors of idle and of checked-out connections: logged (pg drops the connection, and a query on
  // a checked-out one fails), never an unhandled 'error' event.
  const connectionError = (error: Error) =>
    options.log.warn({ err: error }, 'worker connection closed by the server');
  pgPool.on('error', connectionError);
  pgPool.on('connect', (client) => client.on('error', connectionError));
  const runner: Runner = await run({
    pgPool,
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: options.taskList,
    parsedCronItems: parseCrontab(options.crontab),
    logger: workerLogger(options.log),
  });
  return {
    stop: async () => {
      await runner.stop();
      await pgPool.end();
    },
  };
}
