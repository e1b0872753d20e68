import path from 'node:path';
import { ConfigError, wantsLocalChain, type Config } from '../config';
import { isDatabaseUnavailable } from '../db/availability';
import { migrate } from '../db/migrator';
import { databaseHost } from '../db/connection';
import { connectDatabase, type Database } from '../db/prisma';
import { ReadReplicas } from '../db/read-replicas';
import { lockDataFolder, stopOrphans } from '../embedded/data-folder';
import { resolveDataDirectory, startEmbeddedPostgres } from '../embedded/postgres';
import type { SupervisorReport } from '../embedded/supervisor';
import { migrateWorkerSchema } from '../jobs/worker';
import type { Logger } from '../logger';
import type { Lifecycle } from './lifecycle';

/** Where the embedded anvil keeps its chain. */
export function anvilStateFile(config: Config): string {
  return path.join(config.dataDir, 'anvil', 'state.json');
}

/**
 * The connections of a Laurel process, and what uses each:
 *
 * | connection                                   | used by                                                       |
 * | -------------------------------------------- | ------------------------------------------------------------- |
 * | `pool`/`prisma`: DATABASE_URL (may be a      | requests (Prisma), nonce reservations, request budgets,       |
 * |   transaction-mode pooler, DATABASE_POOLER)  | webhook deliveries, jobs enqueued by requests, the primary's  |
 * |                                              | WAL position for read replicas                                |
 * | `reads`: DATABASE_READ_URL replicas, else    | the index's read side: profiles, leaderboards, listings       |
 * |   `pool`                                     |   (src/indexer/read/)                                         |
 * | `sessionUrl`: DATABASE_DIRECT_URL (a         | migrations (session advisory lock), the indexers (a session   |
 * |   session; default DATABASE_URL)             | advisory lock per chain, and their writes), index changes     |
 * |                                              | (LISTEN), graphile-worker (LISTEN, its prepared statements)   |
 */
export interface Infrastructure extends Database {
  /** A session connection's URL (DATABASE_DIRECT_URL, else DATABASE_URL, else the embedded server). */
  sessionUrl: string;
  /** Where the index's reads go: a current read replica, else the primary's `pool`. */
  reads: ReadReplicas;
}

/**
 * The data folder (locked, left-overs of a Laurel that died stopped), the database (embedded when
 * DATABASE_URL is absent) with Laurel's and graphile-worker's migrations applied, and the
 * process's connections (see Infrastructure).
 */
export async function startInfrastructure(
  config: Config,
  lifecycle: Lifecycle,
  log: Logger,
  report: SupervisorReport,
  progress: (line: string) => void,
  /** A stop asked for during the start: a migration waiting for a lock gives up. */
  stopping?: AbortSignal,
): Promise<Infrastructure> {
  if (!config.databaseUrl || wantsLocalChain(config)) {
    // One Laurel per data folder; what a Laurel that died left running on it is stopped first.
    const lock = await lockDataFolder(config.dataDir);
    lifecycle.onStop('data folder lock', () => lock.release());
    const stopped = await stopOrphans({
      postgresDataDirectory: config.databaseUrl ? undefined : resolveDataDirectory(config.dataDir),
      anvilStateFile: wantsLocalChain(config) ? anvilStateFile(config) : undefined,
    });
    if (stopped.length) {
      progress(
        `cleaned     stopped ${stopped.join(' and ')} left running on ${config.dataDir} by a Laurel that died`,
      );
    }
  }

  let databaseUrl = config.databaseUrl;
  let sessionUrl = config.databaseDirectUrl ?? databaseUrl;
  if (!databaseUrl || !sessionUrl) {
    const postgres = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      database: 'laurel',
      log: (line) => log.debug({ postgres: line }),
      report,
    });
    lifecycle.onStop('postgres', () => postgres.stop());
    databaseUrl = sessionUrl = postgres.databaseUrl;
    progress(
      `postgres    embedded PostgreSQL on 127.0.0.1:${postgres.port}, data in ${postgres.dataDirectory}`,
    );
  } else {
    const direct =
      sessionUrl === databaseUrl ? '' : `, sessions ${databaseHost(sessionUrl)} (DATABASE_DIRECT_URL)`;
    progress(
      `postgres    ${databaseHost(databaseUrl)} (DATABASE_URL, ${config.databasePooler} pooling)${direct}` +
        (config.databaseReadUrls.length
          ? `, reads also from ${config.databaseReadUrls.map(databaseHost).join(', ')} (DATABASE_READ_URL)`
          : ''),
    );
  }

  const migrations = await migrate(sessionUrl, { log, signal: stopping }).catch((error: unknown) => {
    // The first connection: a configured database that cannot be reached says which variable.
    const variable = config.databaseDirectUrl
      ? 'DATABASE_DIRECT_URL'
      : config.databaseUrl
        ? 'DATABASE_URL'
        : null;
    if (!variable || !isDatabaseUnavailable(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`${variable}: cannot connect to ${databaseHost(sessionUrl!)}: ${reason}`);
  });
  await migrateWorkerSchema(sessionUrl, log);
  progress(
    `migrations  ${migrations.applied.length ? `applied ${migrations.applied.join(', ')}` : 'database is up to date'}`,
  );
  for (const name of migrations.modified)
    log.warn({ migration: name }, 'applied migration was modified since');

  // pool.end() does not wait for its connections' goodbyes: a database stopped right after may
  // still cut them, which is no loss once the pool is ending.
  let poolEnding = false;
  const limits = {
    lockTimeoutMs: config.databaseLockTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  };
  const database = connectDatabase(databaseUrl, {
    maxConnections: config.databasePoolSize,
    onIdleError: (error) => {
      if (!poolEnding) log.warn({ err: error }, 'idle database connection lost');
    },
    pooler: config.databasePooler,
    limits,
  });
  lifecycle.onStop('database pool', () => {
    poolEnding = true;
    return database.pool.end();
  });
  lifecycle.onStop('prisma', () => database.prisma.$disconnect());
  const reads = new ReadReplicas(database.pool, config.databaseReadUrls, {
    pooler: config.databasePooler,
    poolSize: config.databasePoolSize,
    limits,
    log: log.child({ component: 'read-replicas' }),
  });
  lifecycle.onStop('read replicas', () => reads.stop());
  return { ...database, sessionUrl, reads };
}
