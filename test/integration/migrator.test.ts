import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { migrate, readMigrations } from '../../src/db/migrator';
import { createEmptyDatabase } from '../helpers/database';

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
      await expect(migrate(db.url, dir)).rejects.toThrow(
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
      await migrate(db.url, migrationsFolder({ '001_a': 'CREATE TABLE a (id int);' }));
      const changed = migrationsFolder({ '001_a': 'CREATE TABLE a (id bigint);' });
      expect(await migrate(db.url, changed)).toEqual({ applied: [], modified: ['001_a'] });
    } finally {
      await db.drop();
    }
  });

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
