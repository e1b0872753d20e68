import path from 'node:path';
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import { wantsLocalChain, type Config } from '../config';
import { migrate } from '../db/migrator';
import { connectDatabase, type Database } from '../db/prisma';
import { lockDataFolder, stopOrphans } from '../embedded/data-folder';
import { resolveDataDirectory, startEmbeddedPostgres } from '../embedded/postgres';
import type { SupervisorReport } from '../embedded/supervisor';
import { createWorkerPool } from '../jobs/worker';
import { ThrottledLog, type Logger } from '../logger';
import type { Lifecycle } from './lifecycle';

const silentWorkerLogger = new WorkerLogger(() => () => undefined);

/** Where the embedded anvil keeps its chain. */
export function anvilStateFile(config: Config): string {
  return path.join(config.dataDir, 'anvil', 'state.json');
}

export interface Infrastructure extends Database {
  databaseUrl: string;
}

/**
 * The data folder (locked, left-overs of a Laurel that died stopped), the database (embedded when
 * DATABASE_URL is absent) with Laurel's and graphile-worker's migrations applied, and the
 * process's connection pool.
 */
export async function startInfrastructure(
  config: Config,
  lifecycle: Lifecycle,
  log: Logger,
  report: SupervisorReport,
  progress: (line: string) => void,
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
  if (!databaseUrl) {
    const postgres = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      database: 'laurel',
      log: (line) => log.debug({ postgres: line }),
      report,
    });
    lifecycle.onStop('postgres', () => postgres.stop());
    databaseUrl = postgres.databaseUrl;
    progress(
      `postgres    embedded PostgreSQL on 127.0.0.1:${postgres.port}, data in ${postgres.dataDirectory}`,
    );
  } else {
    progress(`postgres    ${new URL(databaseUrl).host} (DATABASE_URL)`);
  }

  const migrations = await migrate(databaseUrl);
  // graphile-worker's own schema: requests enqueue jobs even in a process that runs no worker.
  const migrationPool = createWorkerPool(databaseUrl, 1, new ThrottledLog(log));
  await runWorkerMigrations({ pgPool: migrationPool, logger: silentWorkerLogger }).finally(() =>
    migrationPool.end(),
  );
  progress(
    `migrations  ${migrations.applied.length ? `applied ${migrations.applied.join(', ')}` : 'database is up to date'}`,
  );
  for (const name of migrations.modified)
    log.warn({ migration: name }, 'applied migration was modified since');

  // pool.end() does not wait for its connections' goodbyes: a database stopped right after may
  // still cut them, which is no loss once the pool is ending.
  let poolEnding = false;
  const database = connectDatabase(databaseUrl, config.databasePoolSize, (error) => {
    if (!poolEnding) log.warn({ err: error }, 'idle database connection lost');
  });
  lifecycle.onStop('database pool', () => {
    poolEnding = true;
    return database.pool.end();
  });
  lifecycle.onStop('prisma', () => database.prisma.$disconnect());
  return { ...database, databaseUrl };
}
