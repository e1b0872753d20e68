/**
 * Idle workers fetch when jobs fall due (DueJobWakeups), not each on its own every second: an idle
 * worker process at WORKER_CONCURRENCY 32 makes a handful of fetches while it waits, and a job
 * scheduled for later, a retry, or a job whose named queue is freed runs once due, long before
 * the workers' own fallback poll (30 s).
 */
import type { TaskList } from 'graphile-worker';
import { startJobWorker, type JobWorker } from '../../src/jobs/worker';
import { createLogger } from '../../src/logger';
import { LaurelMetrics } from '../../src/metrics';
import { createTestDatabase, createTestPool } from '../helpers/database';
import { waitUntil } from '../helpers/wait';

/** Well under the workers' fallback poll of 30 s: a run within it came from a wakeup. */
const DUE_RUN_MS = 10_000;

const log = createLogger('silent');
/** The jobs that ran, by the name in their payload, and when. */
const ran: { name: string; at: number }[] = [];
const failedOnce = new Set<string>();
const taskList: TaskList = {
  test__record: async (payload) => {
    ran.push({ name: (payload as { name: string }).name, at: Date.now() });
  },
  test__fail_once: async (payload) => {
    const { name } = payload as { name: string };
    if (!failedOnce.has(name)) {
      failedOnce.add(name);
      throw new Error('the first attempt fails');
    }
    ran.push({ name, at: Date.now() });
  },
};

/** The run of the job named `name`, once it has run. */
const runOf = (name: string, timeoutMs: number) =>
  waitUntil(`the run of job "${name}"`, () => ran.find((entry) => entry.name === name), timeoutMs);

let database: { url: string; drop(): Promise<void> };
let pool: ReturnType<typeof createTestPool>;
let worker: JobWorker;
const metrics = new LaurelMetrics();

/** laurel_job_fetches_total, all results. */
async function totalFetches(): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('laurel_job_fetches_total')!.get();
  return metric.values.reduce((sum, value) => sum + value.value, 0);
}

beforeAll(async () => {
  database = await createTestDatabase();
  pool = createTestPool(database.url, 2);
  worker = await startJobWorker({
    databaseUrl: database.url,
    concurrency: 32,
    poolSize: 34,
    log,
    taskList,
    crontab: '',
    metrics,
    goneAfterSeconds: 30,
    onDatabaseBack: async () => undefined,
  });
  // Every worker's first fetch.
  await waitUntil('the first fetch of every worker', async () => (await totalFetches()) >= 32);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await pool?.end();
  await database?.drop();
});

it('an idle worker process at concurrency 32 fetches about once a second, not 32 times', async () => {
  // A rate over a window of the workers' idle time: the wakeups look once a second, the fallback
  // polls come 30 s after the first fetches.
  const before = await totalFetches();
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const seconds = (Date.now() - started) / 1000;
  expect(((await totalFetches()) - before) / seconds).toBeLessThan(3);
});

it('a job scheduled for later runs once due, woken up rather than at the fallback poll', async () => {
  const { rows } = await pool.query<{ run_at: Date }>(
    `SELECT run_at FROM graphile_worker.add_job('test__record', '{"name":"scheduled"}', run_at => now() + interval '2 seconds')`,
  );
  const runAt = rows[0]!.run_at.getTime();
  const entry = await runOf('scheduled', DUE_RUN_MS + 2000);
  expect(entry.at).toBeGreaterThanOrEqual(runAt);
  expect(entry.at - runAt).toBeLessThan(DUE_RUN_MS);
});

it('a failed job runs again at its backoff, woken up rather than at the fallback poll', async () => {
  await pool.query(`SELECT graphile_worker.add_job('test__fail_once', '{"name":"retry"}')`);
  await waitUntil('the first attempt failed', () => failedOnce.has('retry'));
  const { rows } = await pool.query<{ run_at: Date }>(
    `SELECT run_at FROM graphile_worker.jobs WHERE task_identifier = 'test__fail_once'`,
  );
  const retryAt = rows[0]!.run_at.getTime();
  const entry = await runOf('retry', DUE_RUN_MS + 5000);
  expect(entry.at - retryAt).toBeLessThan(DUE_RUN_MS);
});

it('a job behind a locked named queue runs once its queue is free', async () => {
  // The queue held as a running job holds it (here a lost worker's lock, freed later), in the
  // transaction that adds the job: no worker can take the job before its queue is held.
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `SELECT graphile_worker.add_job('test__record', '{"name":"queued"}', queue_name => 'held')`,
    );
    await client.query(
      `UPDATE graphile_worker._private_job_queues SET locked_at = now(), locked_by = 'elsewhere' WHERE queue_name = 'held'`,
    );
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  const { rows } = await pool.query<{ waiting: boolean }>(
    `SELECT locked_at IS NULL AND run_at <= now() AS waiting FROM graphile_worker.jobs WHERE queue_name = 'held'`,
  );
  expect(rows).toEqual([{ waiting: true }]);

  await pool.query(
    `UPDATE graphile_worker._private_job_queues SET locked_at = NULL, locked_by = NULL WHERE queue_name = 'held'`,
  );
  const freedAt = Date.now();
  const entry = await runOf('queued', DUE_RUN_MS + 2000);
  expect(entry.at - freedAt).toBeLessThan(DUE_RUN_MS);
});
