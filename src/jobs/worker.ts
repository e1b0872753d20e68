import {
  Logger as WorkerLogger,
  parseCrontab,
  run,
  runMigrations,
  type Runner,
  type TaskList,
  type WorkerEvents,
} from 'graphile-worker';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { databaseUnavailableReason } from '../db/availability';
import { createPool } from '../db/connection';
import { WORKER_POOL_NAME } from './worker-names';
import { ThrottledLog, type Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import { DueJobWakeups } from './due-jobs';
import { RetryLaterError } from './jobs';
import { WorkerSessions } from './worker-sessions';

export interface JobWorker {
  stop(): Promise<void>;
}

function workerLogger(log: Logger, faults: ThrottledLog, metrics: LaurelMetrics | null): WorkerLogger {
  return new WorkerLogger(() => (level, message, meta) => {
    const task = (meta?.job as { task_identifier?: string } | undefined)?.task_identifier;
    // An expected retry (RetryLaterError) is routine: one debug line, no stack, not a failure.
    if (meta?.error instanceof RetryLaterError) {
      log.debug({ job: task }, meta.error.message);
      return;
    }
    if (task && meta?.error) metrics?.jobFailures.inc({ task });
    // A lost database makes every poll fail: logged once per interval, like the HTTP side.
    const unavailable = databaseUnavailableReason(meta?.error);
    if (unavailable !== null) {
      faults.write(
        'warn',
        'database_unavailable',
        { reason: unavailable },
        `database unavailable: ${message}`,
      );
      return;
    }
    // graphile-worker's info lines (connected, job completed) are routine: debug for Laurel.
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    log[method]({ worker: meta }, message);
  });
}

/** Counts the workers' job fetches by their result (laurel_job_fetches_total). */
function countFetches(events: WorkerEvents, metrics: LaurelMetrics): void {
  events.on('job:start', () => metrics.jobFetches.inc({ result: 'job' }));
  events.on('worker:getJob:empty', () => metrics.jobFetches.inc({ result: 'none' }));
  events.on('worker:getJob:error', () => metrics.jobFetches.inc({ result: 'error' }));
}

/**
 * A pg pool for graphile-worker that Laurel owns. graphile-worker ends a pool of its own without
 * waiting and drops its error listener first, so a connection still closing when PostgreSQL shuts
 * down would raise an unhandled 'error' and exit Laurel with code 1. This pool keeps its listeners
 * for its whole life and is ended (awaited) by its owner.
 *
 * Its sessions plan without sorts where they can (WORKER_SESSION_SETTINGS).
 */
export function createWorkerPool(databaseUrl: string, max: number, faults: ThrottledLog): Pool {
  const pool = createPool(databaseUrl, {
    max,
    // Tells the worker's connections apart in pg_stat_activity (its pool's own session: laurel-jobs <id>).
    application_name: WORKER_POOL_NAME,
    // Awaited before the connection is handed out; a failure fails that checkout, as a failed connect.
    onConnect: async (client) => {
      await client.query(WORKER_SESSION_SETTINGS);
    },
  });
  const onError = (error: Error) =>
    faults.write('warn', 'worker_connection', { err: error.message }, 'worker database connection lost');
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/**
 * graphile-worker fetches a job with a prepared statement (`ORDER BY priority, run_at LIMIT 1 FOR
 * UPDATE SKIP LOCKED`) whose plan each connection keeps until the jobs table is next analyzed. When
 * that happens while the queue is nearly empty (a drained queue: the usual state), the planner may
 * keep a plan that reads every available job and sorts them, on every fetch, instead of reading
 * `jobs_main_index` in order, a cost that grows with the backlog until the next ANALYZE
 * (test/integration/query-plans.test.ts shows both plans). No statement
 * on these sessions gains more from a sort than the fetch loses; a query with no other plan still
 * sorts. SET (pg-pool's onConnect) rather than a startup option: a session-mode pooler refuses
 * `options`.
 */
const WORKER_SESSION_SETTINGS = 'SET enable_sort = off';

const silentWorkerLogger = new WorkerLogger(() => () => undefined);

/**
 * Installs or upgrades graphile-worker's own schema (its migrations, quietly) on a session of its
 * own: requests enqueue jobs even in a process that runs no worker.
 */
export async function migrateWorkerSchema(databaseUrl: string, log: Logger): Promise<void> {
  const pool = createWorkerPool(databaseUrl, 1, new ThrottledLog(log));
  await runMigrations({ pgPool: pool, logger: silentWorkerLogger }).finally(() => pool.end());
}

/**
 * The graphile-worker options of Laurel's workers besides the pool, tasks and logger: the defaults
 * otherwise (no localQueue, no completeJobBatchDelay: each job fetched and completed on its own).
 * `npm run bench:webhooks` runs its empty-job baseline through startJobWorker: the same options and
 * pool. `localQueue` and `completeJobBatchDelay` would cut PostgreSQL's work per job, but jobs
 * locked in one process's local queue are not running, so WorkerSessions would free them, and
 * badge-metadata fetches of named queues could then run more at once than their queues allow.
 * An idle worker's own poll is a fallback: DueJobWakeups wakes idle workers when jobs fall due.
 */
export function workerRunOptions(concurrency: number) {
  return { concurrency, noHandleSignals: true, pollInterval: WORKER_FALLBACK_POLL_MS } as const;
}

/**
 * How often jobs that fall due are looked for (DueJobWakeups), and the locks of lost sessions
 * (WorkerSessions).
 */
const WORKER_LOOK_INTERVAL_MS = 1000;

/** How often an idle worker fetches on its own, were no wakeup to reach it. */
const WORKER_FALLBACK_POLL_MS = 30_000;

/**
 * Starts graphile-worker inside PostgreSQL: installs (or upgrades) its schema, then runs tasks.
 * Jobs survive crashes: a job whose worker lost its database session (the database restarted, the
 * process died) runs again within seconds, see WorkerSessions. A runner whose fetches keep failing
 * while the database answers (WorkerSessions' onStalled) is replaced by a new one.
 *
 * The connection pool is Laurel's own: graphile-worker does not wait for the pool it creates to
 * close, and drops its error handler first, so a connection ended by the server meanwhile (a
 * database dropped or restarted just after the stop) would be an unhandled error. Here the pool
 * keeps its handlers and stop() waits until every connection is closed.
 */
export async function startJobWorker(options: {
  databaseUrl: string;
  concurrency: number;
  /** Connections of the worker's own pool (at least concurrency + 2: jobs, LISTEN, housekeeping). */
  poolSize: number;
  log: Logger;
  taskList: TaskList;
  crontab: string;
  metrics: LaurelMetrics | null;
  /** A worker whose database session has been missing this long is gone: its jobs run again. */
  goneAfterSeconds: number;
  /** Called each time the database is back after the worker lost it. */
  onDatabaseBack: () => Promise<void>;
}): Promise<JobWorker> {
  const faults = new ThrottledLog(options.log);
  const pool = createWorkerPool(
    options.databaseUrl,
    Math.max(options.poolSize, options.concurrency + 2),
    faults,
  );
  options.metrics?.watchPool('worker', pool);
  let stopping = false;
  let current: JobWorker | null = null;
  let replacing: Promise<void> | null = null;

  /** A graphile-worker runner on `pool`, watched by WorkerSessions of its own. */
  async function startRunner(): Promise<JobWorker> {
    const sessions = new WorkerSessions({
      databaseUrl: options.databaseUrl,
      intervalMs: WORKER_LOOK_INTERVAL_MS,
      goneAfterMs: options.goneAfterSeconds * 1000,
      log: options.log,
      faults,
      onDatabaseBack: options.onDatabaseBack,
      onStalled: () => {
        replacing ??= replace().finally(() => (replacing = null));
      },
    });
    const wakeups = new DueJobWakeups({
      pool,
      events: sessions.events,
      intervalMs: WORKER_LOOK_INTERVAL_MS,
      concurrency: options.concurrency,
      faults,
    });
    if (options.metrics) countFetches(sessions.events, options.metrics);
    let runner: Runner;
    try {
      runner = await run({
        pgPool: pool,
        ...workerRunOptions(options.concurrency),
        taskList: options.taskList,
        parsedCronItems: parseCrontab(options.crontab),
        logger: workerLogger(options.log, faults, options.metrics),
        events: sessions.events,
        forbiddenFlags: sessions.forbiddenFlags,
      });
    } catch (error) {
      await sessions.stop();
      throw error;
    }
    sessions.start();
    wakeups.start();
    return {
      stop: async () => {
        wakeups.stop();
        await sessions.stop();
        await runner.stop();
      },
    };
  }

  /** Stops the stalled runner (it runs no job: its fetches fail) and starts another until one starts. */
  async function replace(): Promise<void> {
    options.log.warn('job worker: its job fetches keep failing while the database answers; restarting it');
    const stalled = current;
    current = null;
    // A runner that already stopped on its own (its pool exited) says so: it is replaced all the same.
    await stalled?.stop().catch((error: unknown) => {
      options.log.warn(
        { err: (error as Error).message },
        'job worker: the stalled runner did not stop cleanly',
      );
    });
    while (!stopping) {
      try {
        current = await startRunner();
        return;
      } catch (error) {
        faults.write(
          'warn',
          'worker_restart',
          { err: (error as Error).message },
          'could not restart the job worker',
        );
        await sleep(WORKER_LOOK_INTERVAL_MS);
      }
    }
  }

  try {
    current = await startRunner();
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    stop: async () => {
      stopping = true;
      await replacing;
      await current?.stop();
      await untilQuiet(pool);
      await pool.end();
    },
  };
}

/**
 * Resolves once no statement runs on `pool` or waits for one of its connections. graphile-worker
 * 0.17 records a job's outcome without awaiting it, so its stop can resolve while that statement
 * still waits for a connection: an ending pool never serves it, and the job would stay locked
 * (retried only after graphile-worker's 4-hour lock timeout).
 */
async function untilQuiet(pool: Pool): Promise<void> {
  while (pool.waitingCount > 0 || pool.idleCount < pool.totalCount) await sleep(10);
}
