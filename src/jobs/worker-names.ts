/** How the job worker's connections are named (application_name), as pg_stat_activity shows them. */

/** Each connection of the worker's pool. */
export const WORKER_POOL_NAME = 'laurel-worker';

/** The session of a worker pool, followed by the pool's id (WorkerSessions). */
export const WORKER_SESSION_NAME_PREFIX = 'laurel-jobs ';
