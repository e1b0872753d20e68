import { Client } from 'pg';

/**
 * BENCH_STATEMENTS=1: pg_stat_statements counts every statement of a bench's database, and the
 * bench prints where PostgreSQL's time went.
 */
export const statementStats = process.env.BENCH_STATEMENTS === '1';

/** Server settings loading pg_stat_statements when asked (none otherwise). */
export const statementStatsSettings = statementStats
  ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all']
  : [];

async function withClient<T>(databaseUrl: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Starts counting from now (the extension made if missing). */
export async function resetStatementStats(databaseUrl: string): Promise<void> {
  if (!statementStats) return;
  await withClient(databaseUrl, (client) =>
    client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()'),
  );
}

/**
 * Prints the statements PostgreSQL spent the most time in since the reset (calls, total and mean
 * ms, including lock waits, shared buffer pages hit or read per call), and with `byDatabase` the
 * database each ran in.
 */
export async function printTopStatements(databaseUrl: string, count = 25, byDatabase = false): Promise<void> {
  if (!statementStats) return;
  const { rows } = await withClient(databaseUrl, (client) =>
    client.query<{
      calls: string;
      total: number;
      mean: number;
      pages: number;
      database: string;
      query: string;
    }>(
      `SELECT calls, total_exec_time AS total, mean_exec_time AS mean,
              (shared_blks_hit + shared_blks_read)::float8 / calls AS pages, d.datname AS database,
              left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 110) AS query
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        ORDER BY total_exec_time DESC LIMIT $1`,
      [count],
    ),
  );
  console.log(
    `\nPostgreSQL statements by total time (calls, total ms, mean ms, pages per call${byDatabase ? ', database' : ''}):`,
  );
  for (const row of rows) {
    console.log(
      `${row.calls.padStart(8)} ${row.total.toFixed(0).padStart(7)} ${row.mean.toFixed(3).padStart(8)} ` +
        `${row.pages.toFixed(0).padStart(5)}  ${byDatabase ? `${row.database.padEnd(14)} ` : ''}${row.query}`,
    );
  }
}
