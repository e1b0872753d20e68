import { createHash, randomUUID } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, DatabaseError } from 'pg';
import { doublingDelayMs } from '../backoff';
import { connectionConfig } from './connection';
import { inTransaction } from './transaction';

/** prisma/migrations, found from the source tree or from dist/. */
export function migrationsDirectory(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'prisma', 'migrations'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('prisma/migrations not found above ' + __dirname);
    dir = parent;
  }
  return path.join(dir, 'prisma', 'migrations');
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(directory = migrationsDirectory()): Promise<MigrationFile[]> {
  const entries = await fs.readdir(directory, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await fs.readFile(path.join(directory, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

// The table `prisma migrate deploy` keeps; both tools see the same history.
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Any constant: serialises migrators of several Laurel processes starting at once.
const MIGRATION_LOCK_KEY = 72_707_001;

export interface MigrationResult {
  applied: string[];
  /** Applied migrations whose file changed afterwards (Prisma warns about these too). */
  modified: string[];
}

/**
 * How long a migration's statements wait for a lock (its transaction's lock_timeout). A migration
 * that changes a table waits behind every open transaction that uses it, and everything that then
 * uses the table waits behind the migration: one transaction left open elsewhere (an operator's, a
 * long report) would stop the processes still serving along with the one starting. So a migration
 * gives up after this, rolls back whole, and is tried again once the queue behind it went through.
 */
const MIGRATION_LOCK_TIMEOUT_MS = 2000;
/** The pause before a migration that gave up on a lock is tried again: doubled after each try, up to the max. */
const LOCK_RETRY_FIRST_MS = 1000;
const LOCK_RETRY_MAX_MS = 15_000;

/**
 * Open transactions holding locks on the database's own relations (OIDs from 16384, PostgreSQL's
 * first for user objects): whom a migration waited for. Not their statements' text, which can
 * carry what a log must not (a password being set).
 */
const LOCK_HOLDERS = `
  SELECT a.pid, a.usename AS "user", a.application_name AS "applicationName",
         host(a.client_addr) AS "clientAddress", a.state,
         round(extract(epoch FROM now() - a.xact_start))::int AS "transactionSeconds"
    FROM pg_stat_activity a
   WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
     AND EXISTS (SELECT 1 FROM pg_locks l
                  WHERE l.pid = a.pid AND l.granted AND l.locktype = 'relation' AND l.relation >= 16384)
   ORDER BY a.xact_start
   LIMIT 5`;

/**
 * Applies pending SQL migrations in name order, each in its own transaction, recording them in
 * `_prisma_migrations` exactly as Prisma does (sha256 checksum of the file). A migration that
 * waited MIGRATION_LOCK_TIMEOUT_MS for a lock is rolled back and tried again, without end: each
 * try is logged with the sessions holding locks, for an operator to end theirs or stop the start
 * (`signal`: no more tries).
 */
export async function migrate(
  databaseUrl: string,
  options: {
    directory?: string;
    log?: { warn(fields: object, message: string): void };
    signal?: AbortSignal;
  } = {},
): Promise<MigrationResult> {
  const { directory = migrationsDirectory(), log, signal } = options;
  const migrations = await readMigrations(directory);
  const client = new Client(connectionConfig(databaseUrl));
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    // Read before anything is written: a database with nothing to apply may be read-only.
    const { rows: exists } = await client.query<{ table: string | null }>(
      `SELECT to_regclass('"_prisma_migrations"')::text AS table`,
    );
    if (!exists[0]?.table) await client.query(MIGRATIONS_TABLE);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      rolled_back_at: Date | null;
    }>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"');
    const failed = rows.find((row) => row.finished_at === null && row.rolled_back_at === null);
    if (failed) {
      throw new Error(
        `migration ${failed.migration_name} failed earlier and is not rolled back; fix the database, then mark it rolled back`,
      );
    }
    const done = new Map(
      rows.filter((row) => row.finished_at !== null).map((row) => [row.migration_name, row]),
    );
    const result: MigrationResult = { applied: [], modified: [] };
    for (const migration of migrations) {
      const previous = done.get(migration.name);
      if (previous) {
        if (previous.checksum !== migration.checksum) result.modified.push(migration.name);
        continue;
      }
      for (let attempt = 1; !(await applyMigration(client, migration)); attempt += 1) {
        const retryInMs = doublingDelayMs(attempt - 1, LOCK_RETRY_FIRST_MS, LOCK_RETRY_MAX_MS);
        const { rows: holders } = await client.query(LOCK_HOLDERS);
        log?.warn(
          { migration: migration.name, attempt, retryInMs, holders },
          `migration waited ${MIGRATION_LOCK_TIMEOUT_MS / 1000} s for a lock another session holds: rolled back, tried again later (the processes serving go on meanwhile)`,
        );
        await sleep(retryInMs, undefined, { signal });
      }
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

/** Applies one migration and records it, in one transaction; false: it gave up waiting for a lock. */
async function applyMigration(client: Client, migration: MigrationFile): Promise<boolean> {
  const id = randomUUID();
  try {
    await inTransaction(client, async () => {
      await client.query(`SET LOCAL lock_timeout = ${MIGRATION_LOCK_TIMEOUT_MS}`);
      await client.query(
        'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
        [id, migration.checksum, migration.name],
      );
      await client.query(migration.sql);
      await client.query(
        'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
        [id],
      );
    });
    return true;
  } catch (error) {
    if (error instanceof DatabaseError && error.code === '55P03') return false;
    throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
  }
}
