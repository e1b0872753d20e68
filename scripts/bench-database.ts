/**
 * The database of the read benchmarks: DATABASE_URL when set, else an embedded PostgreSQL kept in
 * `<DATA_DIR>/bench` (default .data/bench), apart from the one `npm start` uses. Migrated on open.
 */
import path from 'node:path';
import { migrate } from '../src/db/migrator';
import { startEmbeddedPostgres } from '../src/embedded/postgres';

/** The chain the seeded index belongs to (anvil's chain id; the benchmark names it `bench`). */
export const BENCH_CHAIN_ID = 31337;

export async function openBenchDatabase(): Promise<{
  databaseUrl: string;
  /** The embedded server's postmaster (undefined with DATABASE_URL). */
  pid?: number;
  stop(): Promise<void>;
}> {
  if (process.env.DATABASE_URL) {
    await migrate(process.env.DATABASE_URL);
    return { databaseUrl: process.env.DATABASE_URL, stop: async () => undefined };
  }
  const dataDir = path.join(path.resolve(process.env.DATA_DIR ?? '.data'), 'bench');
  const postgres = await startEmbeddedPostgres({ dataDir, database: 'laurel_bench' });
  try {
    await migrate(postgres.databaseUrl);
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  return { databaseUrl: postgres.databaseUrl, pid: postgres.pid, stop: () => postgres.stop() };
}
