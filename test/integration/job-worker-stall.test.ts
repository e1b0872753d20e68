/**
 * The job worker does not stall for good when PostgreSQL's postmaster is SIGKILLed while its first
 * fetch is under way. graphile-worker 0.17 reads its task ids once per runner, at the first fetch,
 * and keeps the promise of that read: a read that failed is the answer of every later fetch, so
 * the runner never fetches a job again, whatever the database does (the chaos test met it with a
 * postmaster SIGKILL 1 s after a node restart). Here that read is kept waiting on a lock until the
 * postmaster is killed, as the chaos test's timing made it; the runner is then replaced.
 */
import type { TaskList } from 'graphile-worker';
import { rmSync } from 'node:fs';
import { Client, Pool } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/embedded/postgres';
import { migrateWorkerSchema, startJobWorker, type JobWorker } from '../../src/jobs/worker';
import { createLogger } from '../../src/logger';
import { makeDataDir } from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

/** How soon after PostgreSQL is back a job must run. */
const RESCUE_MS = 20_000;

let dataDir: string;
let database: EmbeddedPostgresHandle;
let worker: JobWorker | undefined;
const logLines: { level: number; msg: string }[] = [];
const log = createLogger('info', {
  destination: {
    write: (line: string) => void logLines.push(JSON.parse(line) as { level: number; msg: string }),
  },
});
const ran: unknown[] = [];
const taskList: TaskList = {
  test__record: async (payload) => {
    ran.push(payload);
  },
};

const startDatabase = () =>
  startEmbeddedPostgres({ dataDir, database: 'laurel', persistent: false, supervise: false });

/** A query on a pool of its own (the database restarts in between). */
async function query<T extends object>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new Pool({ connectionString: database.databaseUrl, max: 1 });
  pool.on('error', () => undefined);
  try {
    return (await pool.query<T>(text, values)).rows;
  } finally {
    await pool.end();
  }
}

beforeAll(async () => {
  dataDir = makeDataDir();
  database = await startDatabase();
  await migrateWorkerSchema(database.databaseUrl, log);
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await database?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('fetches jobs again once PostgreSQL is back after a postmaster SIGKILL during its first fetch', async () => {
  // Holds the first fetch's read of the task ids (it registers them first).
  const blocker = new Client({ connectionString: database.databaseUrl });
  blocker.on('error', () => undefined);
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE graphile_worker._private_tasks IN SHARE ROW EXCLUSIVE MODE');

  worker = await startJobWorker({
    databaseUrl: database.databaseUrl,
    concurrency: 2,
    poolSize: 4,
    log,
    taskList,
    crontab: '',
    metrics: null,
    // WORKER_GONE_AFTER_SECONDS' default: the looks' interval (5 s) as in production.
    goneAfterSeconds: 30,
    onDatabaseBack: async () => undefined,
  });
  await waitUntil('the first fetch reading its task ids', async () => {
    const [row] = await query<{ waiting: boolean }>(
      `SELECT true AS waiting FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query LIKE 'insert into %_private_tasks%'`,
    );
    return row?.waiting;
  });

  process.kill(database.pid, 'SIGKILL');
  await waitUntil('the worker losing its session', () =>
    logLines.some((line) => line.msg === 'job worker lost its database session'),
  );
  database = await startDatabase();
  const backAt = Date.now();

  await query(`SELECT graphile_worker.add_job('test__record', '{"after":"the outage"}')`);
  await waitUntil(
    `the job run within ${RESCUE_MS} ms of PostgreSQL being back`,
    () => ran.length > 0,
    RESCUE_MS,
  );
  expect(ran).toEqual([{ after: 'the outage' }]);
  expect(Date.now() - backAt).toBeLessThan(RESCUE_MS);
  // Its runner was replaced: the one whose first fetch failed never fetches again.
  expect(logLines.filter((line) => line.msg.includes('restarting it'))).toHaveLength(1);
}, 120_000);

it('waits out a database that refuses writes: the runner is kept, and runs jobs once it takes them', async () => {
  await worker?.stop();
  const lines: { msg: string }[] = [];
  worker = await startJobWorker({
    databaseUrl: database.databaseUrl,
    concurrency: 2,
    poolSize: 4,
    // graphile-worker says at debug level that a fetch failed.
    log: createLogger('debug', {
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    }),
    taskList,
    crontab: '',
    metrics: null,
    // The looks at the runner's fetches come every second.
    goneAfterSeconds: 6,
    onDatabaseBack: async () => undefined,
  });
  await query(`SELECT graphile_worker.add_job('test__record', '{"before":"read-only"}')`);
  await waitUntil('a job run', () => ran.some((payload) => (payload as { before?: string }).before));

  // Every session refuses writes from its next statement on, as a managed database whose disk fills.
  await query('ALTER SYSTEM SET default_transaction_read_only = on');
  await query('SELECT pg_reload_conf()');
  // A job due now, added by a session that still writes: the worker's fetch of it is refused.
  await query(
    `START TRANSACTION READ WRITE; SELECT graphile_worker.add_job('test__record', '{"during":"read-only"}'); COMMIT`,
  );
  const refused = (line: { msg: string }) => /^Failed to acquire job: .*read-only transaction/.test(line.msg);
  const refusedAt = await waitUntil('a fetch refused', () => (lines.some(refused) ? Date.now() : undefined));
  // Looks (one a second) see the fetches failing while the database answers: not a stalled runner.
  await waitUntil('three looks later', () => (Date.now() - refusedAt >= 3_000 ? true : undefined));
  expect(lines.filter((line) => line.msg.includes('restarting it'))).toEqual([]);

  await query('ALTER SYSTEM RESET default_transaction_read_only');
  await query('SELECT pg_reload_conf()');
  await waitUntil('the job run', () => ran.some((payload) => (payload as { during?: string }).during));
  expect(lines.filter((line) => line.msg.includes('restarting it'))).toEqual([]);
}, 120_000);
