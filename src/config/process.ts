/** The process: its data folder, what it runs (roles), its job concurrency and its shutdown. */
import path from 'node:path';
import { z } from 'zod';
import { commaSeparated, positiveInt, type Parsed } from './values';

export type LaurelRole = 'api' | 'worker' | 'indexer';

/**
 * Jobs a worker process runs at once (WORKER_CONCURRENCY). Laurel's jobs mostly wait on the network
 * (webhook calls of up to 5 s, receipts asked of a node): a few slow receivers must not hold every
 * job of the process, and deliveries are bound by round trips, not CPU (`npm run bench:webhooks`).
 * The job worker's pool grows to this + 2 connections.
 */
export const DEFAULT_WORKER_CONCURRENCY = 32;

export const processVariables = {
  DATA_DIR: z
    .string()
    .min(1)
    .default('.data')
    .describe(
      "folder of the embedded PostgreSQL cluster, the local chain's state, the generated webhook key and the development CA",
    ),
  LAUREL_ROLES: commaSeparated()
    .default('api,worker,indexer')
    .pipe(
      z
        .array(
          z.enum(['api', 'worker', 'indexer'], { message: "each role must be 'api', 'worker' or 'indexer'" }),
        )
        .min(1, 'name at least one role'),
    )
    .describe(
      'what this process runs: `api` (HTTP: REST, GraphQL, docs), `worker` (graphile-worker: receipts, webhook deliveries, housekeeping), `indexer` (the chain indexers)',
    ),
  WORKER_CONCURRENCY: positiveInt(DEFAULT_WORKER_CONCURRENCY).describe(
    'background jobs a worker process runs at once; they mostly wait on the network (webhook calls, receipts), so it is well above the core count (`npm run bench:webhooks`)',
  ),
  WORKER_GONE_AFTER_SECONDS: positiveInt(30).describe(
    "a job worker whose database session (`laurel-jobs <pool id>` in `pg_stat_activity`) has been missing this long is taken to be gone, and the jobs it held run again; longer than any job runs (a webhook call, a metadata fetch). A worker's own jobs left locked when it lost its session run again as soon as it has one again",
  ),
  SHUTDOWN_GRACE_SECONDS: positiveInt(10).describe(
    'on SIGTERM/SIGINT, how long requests in flight may take to be answered (no new request is taken meanwhile); a request still unanswered then is cut. Jobs and broadcasts under way are then awaited (each within its own deadline) before the database and RPC pools close',
  ),
  SHUTDOWN_IDLE_LINGER_MS: positiveInt(250).describe(
    'during a stop, once the requests in flight are answered, how long connections left idle stay open before they are closed: a request a client sent on one just before (not read yet) is answered 503 with `Connection: close` rather than cut by the close',
  ),
  SHUTDOWN_ANSWER_MARGIN_MS: positiveInt(1000).describe(
    'during a stop, `execute-and-wait` requests still waiting for their receipt this long before the end of `SHUTDOWN_GRACE_SECONDS` answer what they know (their `Timeout` answer with the hash) rather than be cut',
  ),
};

export interface ProcessConfig {
  dataDir: string;
  /** What this process runs: the HTTP API, the job worker, the chain indexers (LAUREL_ROLES). */
  roles: ReadonlySet<LaurelRole>;
  workerConcurrency: number;
  /** A job worker whose database session has been missing this long is gone: its jobs run again. */
  workerGoneAfterSeconds: number;
  /** On SIGTERM, how long requests in flight may take to be answered before they are cut. */
  shutdownGraceSeconds: number;
  /** How long before the end of the grace requests that wait (execute-and-wait) answer what they know. */
  shutdownAnswerMarginMs: number;
  /** How long idle connections stay open once a stop's requests in flight are answered. */
  shutdownIdleLingerMs: number;
}

export function processConfig(e: Parsed<typeof processVariables>, cwd: string): ProcessConfig {
  return {
    dataDir: path.resolve(cwd, e.DATA_DIR),
    roles: new Set(e.LAUREL_ROLES),
    workerConcurrency: e.WORKER_CONCURRENCY,
    workerGoneAfterSeconds: e.WORKER_GONE_AFTER_SECONDS,
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    shutdownAnswerMarginMs: e.SHUTDOWN_ANSWER_MARGIN_MS,
    shutdownIdleLingerMs: e.SHUTDOWN_IDLE_LINGER_MS,
  };
}
