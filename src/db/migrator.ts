import { createHash, randomUUID } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
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
 * Applies pending SQL migrations in name order, each in its own transaction, recording them in
 * `_prisma_migrations` exactly as Prisma does (sha256 checksum of the file).
 */
export async function migrate(
  databaseUrl: string,
  directory = migrationsDirectory(),
): Promise<MigrationResult> {
  const migrations = await readMigrations(directory);
  const client = new Client(connectionConfig(databaseUrl));
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(MIGRATIONS_TABLE);
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
      const id = randomUUID();
      await inTransaction(client, async () => {
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query(
          'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
          [id],
        );
      }).catch((error: unknown) => {
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      });
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
