import { Client, type ClientBase } from 'pg';
import { migrate } from '../../src/db/migrator';
import { createWorkerPool, migrateWorkerSchema } from '../../src/jobs/worker';
import { createLogger, ThrottledLog } from '../../src/logger';
import { createEmptyDatabase } from '../helpers/database';

/**
 * Statements every send runs on `transactions`, prepared as the pool prepares them (a generic plan,
 * kept for the connection's life): each must find its rows through the index meant for it, on a
 * table with few rows and no statistics (a new deployment) as on one analyzed with many. An index on
 * chain_id alone once won the receipt's update on a small table, and the plan then read every
 * transaction of the chain for each receipt.
 */
const STATEMENTS = [
  {
    what: "a receipt's update (TransactionsRepository.recordReceipt)",
    sql: `UPDATE transactions SET status = 'success', track_from = NULL
           WHERE chain_id = $1 AND hash = $2 AND status = 'pending'`,
    types: 'integer, text',
    index: 'transactions_chain_id_hash_key',
  },
  {
    what: "the nonce-gap check's count of transactions in flight (TransactionsRepository.countInFlight)",
    sql: `SELECT count(DISTINCT nonce)::integer FROM transactions
           WHERE chain_id = $1 AND from_address = $2 AND status = 'pending'
             AND nonce >= $3 AND nonce < $4 AND created_at > $5`,
    types: 'integer, text, bigint, bigint, timestamptz',
    index: 'transactions_from_address_chain_id_nonce_idx',
  },
];

/**
 * A page of an account's transactions, newest first (TransactionsRepository.listSent, as Prisma
 * sends it): read backwards through the account's rows in that order, not all its rows sorted.
 */
const LISTING = [
  {
    what: "a page of the account's transactions (TransactionsRepository.listSent)",
    sql: `SELECT id, hash, status FROM transactions
           WHERE account_address = $1 AND chain_id = ANY($2)
           ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    types: 'text, integer[], bigint, bigint',
    index: 'transactions_account_address_created_at_id_idx',
  },
];

const SENDERS = 20;

type Statement = (typeof STATEMENTS)[number];

/** For each statement, the indexes its generic plan reads (or the plan itself when it reads none). */
async function indexesOfGenericPlans(
  client: Client,
  statements: Statement[] = STATEMENTS,
): Promise<string[][]> {
  await client.query('SET plan_cache_mode = force_generic_plan');
  const used: string[][] = [];
  for (const [i, statement] of statements.entries()) {
    await client.query(`PREPARE plan_${i} (${statement.types}) AS ${statement.sql}`);
    const args = statement.types
      .split(', ')
      .map(
        (type) =>
          ({ integer: '1', text: `'x'`, bigint: '0', timestamptz: 'now()', 'integer[]': `'{1}'` })[type],
      );
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN EXECUTE plan_${i} (${args.join(', ')})`,
    );
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    const indexes = [...plan.matchAll(/(?: using|Bitmap Index Scan on) (\w+)/g)].map((match) => match[1]);
    used.push(indexes.length ? indexes : [plan]);
    await client.query(`DEALLOCATE plan_${i}`);
  }
  return used;
}

describe('plans of the statements on transactions', () => {
  it('use the index meant for them on a new table and on an analyzed one with many rows', async () => {
    const database = await createEmptyDatabase();
    const client = new Client({ connectionString: database.url });
    try {
      await migrate(database.url);
      await client.connect();
      // Each plan reads the statement's index (a bitmap scan may AND it with the status index).
      const expected = STATEMENTS.map((statement) => expect.arrayContaining([statement.index]));
      expect(await indexesOfGenericPlans(client)).toEqual(expected);

      // 20,000 transactions of 20 senders on one chain, mined but the last few of each sender.
      await client.query(
        `INSERT INTO accounts (address) VALUES ('0x0000000000000000000000000000000000000001')`,
      );
      await client.query(
        `INSERT INTO transactions (account_address, chain_id, chain_name, hash, from_address, nonce, status, block_number)
         SELECT '0x0000000000000000000000000000000000000001', 1, 'one', '0x' || lpad(to_hex(n), 64, '0'),
                '0x' || lpad(to_hex(n % $1), 40, '0'), n / $1,
                CASE WHEN n >= 20000 - 3 * $1 THEN 'pending' ELSE 'success' END::transaction_status,
                CASE WHEN n >= 20000 - 3 * $1 THEN NULL ELSE n / $1 END
           FROM generate_series(0, 19999) AS n`,
        [SENDERS],
      );
      expect(await indexesOfGenericPlans(client)).toEqual(expected);
      await client.query('ANALYZE transactions');
      expect(await indexesOfGenericPlans(client)).toEqual(expected);
    } finally {
      await client.end();
      await database.drop();
    }
  });

  it("read an account's page of transactions through (account_address, created_at, id), newest first", async () => {
    const database = await createEmptyDatabase();
    const client = new Client({ connectionString: database.url });
    try {
      await migrate(database.url);
      await client.connect();
      const expected = LISTING.map((statement) => expect.arrayContaining([statement.index]));
      expect(await indexesOfGenericPlans(client, LISTING)).toEqual(expected);
      // 20,000 transactions of 20 accounts (each its own signer) on two chains.
      await client.query(
        `INSERT INTO accounts (address) SELECT '0x' || lpad(to_hex(n), 40, '0') FROM generate_series(0, $1 - 1) AS n`,
        [SENDERS],
      );
      await client.query(
        `INSERT INTO transactions (account_address, chain_id, chain_name, hash, from_address, nonce, status)
         SELECT '0x' || lpad(to_hex(n % $1), 40, '0'), 1 + n % 2, 'c', '0x' || lpad(to_hex(n), 64, '0'),
                '0x' || lpad(to_hex(n % $1), 40, '0'), n / $1, 'success'
           FROM generate_series(0, 19999) AS n`,
        [SENDERS],
      );
      expect(await indexesOfGenericPlans(client, LISTING)).toEqual(expected);
      await client.query('ANALYZE transactions');
      expect(await indexesOfGenericPlans(client, LISTING)).toEqual(expected);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});

/**
 * `sql` run under EXPLAIN ANALYZE: its plan's text and the buffer pages it read (a function's own
 * statements included).
 */
async function explainAnalyzed(client: ClientBase, sql: string): Promise<{ plan: string; pages: number }> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${sql}`,
  );
  const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
  return { plan, pages: Number(/Buffers: shared hit=(\d+)/.exec(plan)?.[1] ?? NaN) };
}

/**
 * graphile-worker's job fetch (the select of batchGetJobs in graphile-worker/dist/sql/getJobs.js,
 * with its default queue clause), as a worker's connection prepares it.
 */
const JOB_FETCH = `
  SELECT jobs.job_queue_id, jobs.priority, jobs.run_at, jobs.id
    FROM graphile_worker._private_jobs AS jobs
   WHERE jobs.is_available = true
     AND run_at <= now()
     AND task_id = any($1::int[])
     AND (jobs.job_queue_id IS NULL
          OR jobs.job_queue_id IN (SELECT id FROM graphile_worker._private_job_queues AS job_queues
                                    WHERE job_queues.is_available = true FOR UPDATE SKIP LOCKED))
   ORDER BY priority ASC, run_at ASC
   LIMIT 1
   FOR UPDATE SKIP LOCKED`;

/**
 * The fetch's generic plan made while the queue is drained and analyzed (as autovacuum leaves it),
 * then run against a backlog of 2,000 jobs: the plan a connection keeps until the next ANALYZE.
 * Returns the plan's text and the buffer pages it read.
 */
async function fetchPlanOnBacklog(client: ClientBase): Promise<{ plan: string; pages: number }> {
  await client.query('VACUUM ANALYZE graphile_worker._private_jobs');
  await client.query('SET plan_cache_mode = force_generic_plan');
  await client.query(`PREPARE job_fetch (int[]) AS ${JOB_FETCH}`);
  await client.query('BEGIN');
  try {
    // Planned (and kept) on the empty table, as a worker's first fetch after the ANALYZE is.
    await client.query('EXECUTE job_fetch (ARRAY[1])');
    await client.query(
      `SELECT graphile_worker.add_jobs(array_agg(('bench', '{}'::json, null, null, null, null, null, null)::graphile_worker.job_spec))
         FROM generate_series(1, 2000)`,
    );
    const { rows: tasks } = await client.query<{ ids: string }>(
      'SELECT array_agg(id)::text AS ids FROM graphile_worker._private_tasks',
    );
    return await explainAnalyzed(client, `EXECUTE job_fetch ('${tasks[0]!.ids}')`);
  } finally {
    await client.query('ROLLBACK');
    await client.query('DEALLOCATE job_fetch');
  }
}

describe("graphile-worker's job fetch on the worker's connections", () => {
  it('reads jobs_main_index in order, never sorting the backlog, when planned on a drained queue', async () => {
    const database = await createEmptyDatabase();
    const log = createLogger('silent');
    const pool = createWorkerPool(database.url, 1, new ThrottledLog(log));
    const plain = new Client({ connectionString: database.url });
    try {
      await migrateWorkerSchema(database.url, log);
      await plain.connect();
      // What the setting prevents: a plain session keeps a plan that sorts every available job.
      const unset = await fetchPlanOnBacklog(plain);
      expect(unset.plan).toMatch(/Sort/);

      const worker = await pool.connect();
      try {
        const { plan, pages } = await fetchPlanOnBacklog(worker);
        expect(plan).not.toMatch(/Sort/);
        expect(plan).toMatch(/Index Scan using jobs_(main|no_queue)_index/);
        expect(pages).toBeLessThan(unset.pages / 5);
      } finally {
        worker.release();
      }
    } finally {
      await plain.end();
      await pool.end();
      await database.drop();
    }
  });
});

describe('job lookups by key (a receipt removes its tracking job and looks for a waiting check)', () => {
  it('read the key index, however many jobs were queued after the plan was made', async () => {
    const database = await createEmptyDatabase();
    // Plans are per connection (a PL/pgSQL function's too): one for graphile-worker's own calls,
    // one for Laurel's.
    const plain = new Client({ connectionString: database.url });
    const laurel = new Client({ connectionString: database.url });
    try {
      await migrateWorkerSchema(database.url, createLogger('silent'));
      await migrate(database.url);
      await plain.connect();
      await laurel.connect();
      // No analyze by autovacuum once the jobs are queued: it would have every plan made again.
      await plain.query('ALTER TABLE graphile_worker._private_jobs SET (autovacuum_enabled = false)');
      await plain.query('VACUUM ANALYZE graphile_worker._private_jobs');
      // What recordReceipt's statement inlined before: an EXISTS kept as a generic plan.
      await plain.query('SET plan_cache_mode = force_generic_plan');
      await plain.query(`PREPARE inlined_waiting (text) AS SELECT EXISTS (SELECT 1 FROM graphile_worker.jobs
                           WHERE key = $1 AND locked_at IS NULL AND run_at >= now())`);
      await plain.query('RESET plan_cache_mode');
      // Planned (and kept) on the drained queue: more calls than PostgreSQL makes custom plans for
      // before it settles on a generic one.
      for (let i = 0; i < 10; i += 1) {
        await plain.query('SELECT graphile_worker.remove_job($1)', [`none-${i}`]);
        await plain.query(`EXECUTE inlined_waiting ('none-${i}')`);
        await laurel.query('SELECT laurel_remove_job($1), laurel_job_waiting($1, now())', [`none-${i}`]);
      }
      await plain.query(
        `SELECT graphile_worker.add_jobs(array_agg(('t', '{}'::json, null, null, null, 'key-' || n, null, null)::graphile_worker.job_spec))
           FROM generate_series(1, 20000) AS n`,
      );

      const before = {
        remove: (await explainAnalyzed(plain, `SELECT graphile_worker.remove_job('key-7')`)).pages,
        waiting: (await explainAnalyzed(plain, `EXECUTE inlined_waiting ('key-9')`)).pages,
      };
      const after = {
        remove: (await explainAnalyzed(laurel, `SELECT laurel_remove_job('key-8')`)).pages,
        waiting: (await explainAnalyzed(laurel, `SELECT laurel_job_waiting('key-10', now())`)).pages,
      };
      // The queue is about 270 pages: the plain plans read all of it, Laurel's a few index pages
      // (and the removed job's heap page and its function's catalog rows).
      expect(before.remove).toBeGreaterThan(200);
      expect(before.waiting).toBeGreaterThan(200);
      expect(after.remove).toBeLessThan(before.remove / 5);
      expect(after.waiting).toBeLessThan(before.waiting / 5);
      // Still what they were: the job is gone, and a waiting job is found.
      const { rows } = await laurel.query<{ removed: boolean; waiting: boolean }>(
        `SELECT NOT EXISTS (SELECT 1 FROM graphile_worker.jobs WHERE key = 'key-8') AS removed,
                laurel_job_waiting('key-11', now() - interval '1 hour') AS waiting`,
      );
      expect(rows[0]).toEqual({ removed: true, waiting: true });
    } finally {
      await plain.end();
      await laurel.end();
      await database.drop();
    }
  });
});
