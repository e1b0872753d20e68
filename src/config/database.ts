/** The database: its URLs (a pooler, a session connection, read replicas) and the pools' sizes. */
import { z } from 'zod';
import { commaSeparated, ConfigError, positiveInt, postgresUrl, type Parsed } from './values';

/** What DATABASE_URL leads to: see DATABASE_POOLER and src/db/connection.ts. */
export type PoolerMode = 'session' | 'transaction';

export const databaseVariables = {
  DATABASE_URL: postgresUrl
    .optional()
    .describe(
      'PostgreSQL URL (may be a pooler: `DATABASE_POOLER`; TLS: `sslmode`, `sslrootcert` as libpq reads them). Unset: an embedded PostgreSQL is started under `DATA_DIR`',
    ),
  DATABASE_DIRECT_URL: postgresUrl
    .optional()
    .describe(
      "a session connection to the same database, like Prisma's `directUrl`: migrations, `LISTEN` (index changes, transaction statuses, the job worker), the indexers' session advisory locks and graphile-worker use it. Set it when `DATABASE_URL` goes through a transaction-mode pooler (PgBouncer). Default: `DATABASE_URL`",
    ),
  DATABASE_POOLER: z
    .enum(['auto', 'session', 'transaction'])
    .default('auto')
    .describe(
      'what `DATABASE_URL` and `DATABASE_READ_URL` lead to. `transaction`: a transaction-mode pooler that does not keep prepared statements (PgBouncer up to 1.20, or `max_prepared_statements = 0`): every statement is sent unnamed. `session`: a server, a session-mode pooler, or PgBouncer >= 1.21 with `max_prepared_statements` > 0: hot statements are prepared once per connection. `auto`: `transaction` when `DATABASE_DIRECT_URL` is set to another URL, else `session`',
    ),
  DATABASE_READ_URL: commaSeparated()
    .pipe(z.array(postgresUrl))
    .optional()
    .describe(
      'read replicas (streaming standbys of the primary), comma-separated: profiles, leaderboards and the index listings are read from one that has replayed every index commit the process knows of, else from the primary (docs/production-database.md). Needs `DATABASE_URL`',
    ),
  DATABASE_POOL_SIZE: positiveInt(10).describe(
    "connections of the process's own pool (requests, rate limits, indexer)",
  ),
  DATABASE_LOCK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(5000)
    .describe(
      "how long a statement of the process's pool (and of the read replicas') waits for a lock another session holds (PostgreSQL's `lock_timeout`): then its request answers 503 `Database unavailable` and gives its connection back, so that an operator's open transaction or a migration blocks only what needs its lock. `0`: without bound. Not set behind a transaction-mode pooler (`DATABASE_POOLER=transaction`): set it on the role there (docs/production-database.md)",
    ),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30000)
    .describe(
      "how long a statement of the process's pool (and of the read replicas') may take, lock waits included (PostgreSQL's `statement_timeout`): then its request answers 503 `Database unavailable` and gives its connection back, so that a statement the server is slow to finish ties up one request, not the pool. The indexer, the job worker's own queries and migrations use other connections and are not bound. `0`: without bound. Not set behind a transaction-mode pooler: set it on the role there (docs/production-database.md)",
    ),
  WORKER_POOL_SIZE: positiveInt(10).describe(
    "connections of the job worker's pool; raised to `WORKER_CONCURRENCY` + 2 when smaller",
  ),
};

export interface DatabaseConfig {
  /** Absent: an embedded PostgreSQL is started under dataDir. */
  databaseUrl?: string;
  /** A session connection for LISTEN, migrations, advisory locks and the job worker; absent: databaseUrl. */
  databaseDirectUrl?: string;
  /** What databaseUrl (and the read URLs) lead to: whether statements may be prepared by name. */
  databasePooler: PoolerMode;
  /** Read replicas of databaseUrl (none: every read goes to databaseUrl). */
  databaseReadUrls: string[];
  /** Connections of the process's own pool (requests, indexer) and of the job worker's. */
  databasePoolSize: number;
  /** How long a statement of the process's pool waits for another session's lock; 0: without bound. */
  databaseLockTimeoutMs: number;
  /** How long a statement of the process's pool may take; 0: without bound. */
  databaseStatementTimeoutMs: number;
  workerPoolSize: number;
}

/** The database's part of Config; a pooler or replica URL without DATABASE_URL is a ConfigError. */
export function databaseConfig(e: Parsed<typeof databaseVariables>): DatabaseConfig {
  if (!e.DATABASE_URL && (e.DATABASE_DIRECT_URL || e.DATABASE_READ_URL)) {
    throw new ConfigError(
      `Invalid configuration: ${e.DATABASE_DIRECT_URL ? 'DATABASE_DIRECT_URL' : 'DATABASE_READ_URL'}: needs DATABASE_URL (the embedded PostgreSQL has no pooler or replica)`,
    );
  }
  const directUrl = e.DATABASE_DIRECT_URL ?? e.DATABASE_URL;
  return {
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    databasePooler:
      e.DATABASE_POOLER === 'auto'
        ? directUrl !== e.DATABASE_URL
          ? 'transaction'
          : 'session'
        : e.DATABASE_POOLER,
    databaseReadUrls: e.DATABASE_READ_URL ?? [],
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseLockTimeoutMs: e.DATABASE_LOCK_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    workerPoolSize: e.WORKER_POOL_SIZE,
  };
}
