import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import { migrate } from '../../src/db/migrator';

export function testServerUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      'TEST_DATABASE_URL is not set: run the tests through jest (global setup starts PostgreSQL)',
    );
  return url;
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A fresh, empty database of its own for one test file. */
export async function createEmptyDatabase(
  prefix = 'laurel_test',
): Promise<{ url: string; drop(): Promise<void> }> {
  const server = testServerUrl();
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  return {
    url: databaseUrl(server, name),
    drop: async () => {
      const client = new Client({ connectionString: server });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A fresh database with every migration applied. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const database = await createEmptyDatabase();
  await migrate(database.url);
  return database;
}

/**
 * A pool for a test's own queries. pg-pool's end() resolves before its connections have closed, so
 * the database drop at teardown can still cut one of them: that error is expected, and without a
 * listener it would fail whichever test the worker runs next.
 */
export function createTestPool(url: string, max: number): Pool {
  const pool = new Pool({ connectionString: url, max });
  pool.on('error', () => undefined);
  return pool;
}
