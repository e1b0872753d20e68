import { Client } from 'pg';
import { readMigrations } from '../../src/db/migrator';
import { functionStatements, readFunctionFiles } from '../../scripts/db-function';
import { createTestDatabase } from '../helpers/database';

const files = readFunctionFiles();

/** Every function of the public schema (extensions' aside): name → pg_get_functiondef of each form. */
async function definitions(client: Client): Promise<Record<string, string[]>> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d
                         WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      ORDER BY 1, 2`,
  );
  const byName: Record<string, string[]> = {};
  for (const row of rows) (byName[row.name] ??= []).push(row.definition);
  return byName;
}

describe('SQL functions: one definition each, in prisma/functions', () => {
  it('each file creates or replaces only the function it is named after', () => {
    expect(files).not.toEqual([]);
    for (const file of files) {
      const statements = functionStatements(file.sql);
      expect(statements).not.toEqual([]);
      expect(statements).toEqual(statements.map(() => ({ verb: 'CREATE OR REPLACE', name: file.name })));
    }
  });

  it('the last migration that touches each function carries its file', async () => {
    const migrations = await readMigrations();
    // Whole-line comments aside: a file's comments may be improved without a migration.
    const code = (sql: string) =>
      sql
        .split('\n')
        .filter((line) => !/^\s*--/.test(line))
        .join('\n')
        .trim();
    const installed = Object.fromEntries(
      files.map((file) => {
        const last = migrations
          .filter((migration) => functionStatements(migration.sql).some(({ name }) => name === file.name))
          .at(-1);
        return [file.name, last !== undefined && code(last.sql).includes(code(file.sql))];
      }),
    );
    // A false one: npm run db:function -- <name> writes the migration that installs the file.
    expect(installed).toEqual(Object.fromEntries(files.map((file) => [file.name, true])));
  });

  it('a migrated database holds exactly the functions of the files, as the files define them', async () => {
    const database = await createTestDatabase();
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const migrated = await definitions(client);
      expect(Object.keys(migrated).sort()).toEqual(files.map((file) => file.name).sort());

      // The files alone, in a transaction that is rolled back: every function dropped, then each
      // file run. Bodies are checked when the migrations run; here files may come in any order.
      await client.query('BEGIN');
      await client.query('SET LOCAL check_function_bodies = off');
      const { rows } = await client.query<{ signature: string }>(
        `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
           JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = 'public' AND p.proname = ANY($1::text[])`,
        [Object.keys(migrated)],
      );
      await client.query(`DROP FUNCTION ${rows.map((row) => row.signature).join(', ')}`);
      expect(await definitions(client)).toEqual({});
      for (const file of files) await client.query(file.sql);
      const fromFiles = await definitions(client);
      await client.query('ROLLBACK');

      expect(fromFiles).toEqual(migrated);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
