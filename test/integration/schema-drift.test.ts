import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../src/db/migrator';
import { createEmptyDatabase } from '../helpers/database';

const root = path.resolve(__dirname, '../..');

/** Columns, constraints, indexes and enums of the public schema, in a comparable form. */
async function catalog(url: string): Promise<Record<string, string[]>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async (sql: string) => (await client.query<{ d: string }>(sql)).rows.map((row) => row.d);
    return {
      columns: await rows(`SELECT concat_ws(' ', table_name, column_name, data_type, udt_name, is_nullable,
          character_maximum_length, numeric_precision, datetime_precision, column_default) AS d
        FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
        ORDER BY table_name, column_name`),
      constraints:
        await rows(`SELECT concat_ws(' ', rel.relname, con.conname, pg_get_constraintdef(con.oid)) AS d
        FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid
        JOIN pg_namespace ns ON ns.oid = rel.relnamespace
        WHERE ns.nspname = 'public' AND rel.relname <> '_prisma_migrations' ORDER BY 1`),
      indexes: await rows(`SELECT indexdef AS d FROM pg_indexes
        WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`),
      enums:
        await rows(`SELECT concat_ws(' ', t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)) AS d
        FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY t.typname ORDER BY 1`),
    };
  } finally {
    await client.end();
  }
}

describe('migrations and the Prisma data model', () => {
  it('produce the same database', async () => {
    const migrated = await createEmptyDatabase();
    const fromModel = await createEmptyDatabase();
    try {
      await migrate(migrated.url);
      // What Prisma itself would create from prisma/schema.prisma, by its own schema engine.
      const sql = execFileSync(
        process.execPath,
        [
          '--experimental-wasm-modules',
          '--no-warnings',
          'scripts/prisma-diff.mjs',
          '--to',
          'prisma/schema.prisma',
        ],
        { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: fromModel.url } },
      );
      const client = new Client({ connectionString: fromModel.url });
      await client.connect();
      await client.query(sql);
      await client.end();
      expect(await catalog(migrated.url)).toEqual(await catalog(fromModel.url));
    } finally {
      await migrated.drop();
      await fromModel.drop();
    }
  });
});
