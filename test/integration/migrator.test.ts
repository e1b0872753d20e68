import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { migrate, readMigrations } from '../../src/db/migrator';
import { createEmptyDatabase } from '../helpers/database';
import { waitUntil } from '../helpers/wait';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function migrationsFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'laurel-migrations-'));
  folders.push(dir);
  for (const [name, sql] of Object.entries(files)) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, 'migration.sql'), sql);
  }
  return dir;
}

describe('migrator', () => {
  it('applies the project migrations once and records them as Prisma does', async () => {
    const db = await createEmptyDatabase();
    try {
      const first = await migrate(db.url);
      const files = await readMigrations();
      expect(first.applied).toEqual(files.map((file) => file.name));
      expect((await migrate(db.url)).applied).toEqual([]);
      const client = new Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query(
        'SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM _prisma_migrations ORDER BY migration_name',
      );
      await client.end();
      expect(rows).toEqual(
        files.map((file) => ({
          migration_name: file.name,
          checksum: createHash('sha256').update(file.sql).digest('hex'),
          finished_at: expect.any(Date),
          applied_steps_count: 1,
          rolled_back_at: null,
        })),
      );
    } finally {
      await db.drop();
    }
  });

  it('rolls back a failing migration whole, reports it, and leaves earlier ones applied', async () => {
    const db = await createEmptyDatabase();
    const dir = migrationsFolder({
      '001_ok': 'CREATE TABLE a (id int);',
      '002_bad': 'CREATE TABLE b (id int); SELECT * FROM missing_table;',
    });
    try {
      await expect(migrate(db.url, { directory: dir })).rejects.toThrow(
        /migration 002_bad failed: relation "missing_table"/,
      );
      const client = new Client({ connectionString: db.url });
      await client.connect();
      const tables = await client.query(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
      );
      const recorded = await client.query('SELECT migration_name FROM _prisma_migrations');
      await client.end();
      expect(tables.rows.map((row) => row.tablename)).toEqual(['_prisma_migrations', 'a']);
      expect(recorded.rows).toEqual([{ migration_name: '001_ok' }]);
    } finally {
      await db.drop();
    }
  });

  it('reports applied migrations whose file changed', async () => {
    const db = await createEmptyDatabase();
    try {
      await migrate(db.url, { directory: migrationsFolder({ '001_a': 'CREATE TABLE a (id int);' }) });
      const changed = migrationsFolder({ '001_a': 'CREATE TABLE a (id bigint);' });
      expect(await migrate(db.url, { directory: changed })).toEqual({ applied: [], modified: ['001_a'] });
    } finally {
      await db.drop();
    }
  });

  it('gives up on a lock an open transaction holds, rolled back whole, tries again, and blocks the serving processes no longer than that', async () => {
    const db = await createEmptyDatabase();
    const connect = async (applicationName: string) => {
      const client = new Client({ connectionString: db.url, application_name: applicationName });
      await client.connect();
      return client;
    };
    const [holder, serving] = await Promise.all([connect('a long report'), connect('laurel')]);
    try {
      await migrate(db.url, { directory: migrationsFolder({ '001_a': 'CREATE TABLE a (id int);' }) });
      const next = migrationsFolder({
        '001_a': 'CREATE TABLE a (id int);',
        '002_b': 'CREATE TABLE b (id int); ALTER TABLE a ADD COLUMN note text;',
      });
      // A transaction left open on `a`; a serving process bounds its own lock waits, as Laurel's pool does.
      await holder.query('BEGIN');
      await holder.query('SELECT count(*) FROM a');
      await serving.query('SET lock_timeout = 5000');
      const tries: { attempt: number; holders: { applicationName: string; state: string }[] }[] = [];
      const migrating = migrate(db.url, {
        directory: next,
        log: { warn: (fields) => void tries.push(fields as (typeof tries)[number]) },
      });
      await waitUntil('two tries given up', () => tries.length >= 2);
      expect(tries.map((attempt) => attempt.attempt)).toEqual([1, 2]);
      expect(tries[0]!.holders).toEqual([
        expect.objectContaining({ applicationName: 'a long report', state: 'idle in transaction' }),
      ]);
      // Between tries nothing is left of the migration, and what serves reads `a` as before.
      expect((await serving.query('SELECT count(*)::int AS n FROM a')).rows).toEqual([{ n: 0 }]);
      const state = await serving.query(
        "SELECT to_regclass('b') AS b, (SELECT count(*)::int FROM _prisma_migrations) AS recorded",
      );
      expect(state.rows).toEqual([{ b: null, recorded: 1 }]);

      await holder.query('COMMIT');
      expect(await migrating).toEqual({ applied: ['002_b'], modified: [] });
      const columns = await serving.query(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'a' ORDER BY 1",
      );
      expect(columns.rows).toEqual([{ column_name: 'id' }, { column_name: 'note' }]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await Promise.all([holder.end(), serving.end()]);
      await db.drop();
    }
  }, 60_000);

  it('lets concurrent migrators apply each migration once', async () => {
    const db = await createEmptyDatabase();
    try {
      const results = await Promise.all([migrate(db.url), migrate(db.url), migrate(db.url)]);
      const applied = results.flatMap((result) => result.applied);
      expect(applied.sort()).toEqual((await readMigrations()).map((file) => file.name).sort());
    } finally {
      await db.drop();
    }
  });
});
