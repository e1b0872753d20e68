/**
 * Webhook delivery throughput: deliveries per second from Laurel worker processes to a local HTTPS
 * receiver (sign, POST over TLS, log the attempt and mark the delivery, all as in production),
 * with 1 and with 2 worker processes, next to a baseline measured in the same run on the same
 * PostgreSQL server: graphile-worker's own throughput for empty jobs with the same processes,
 * concurrency, connection pool (startJobWorker) and options. Prints both and their ratio.
 *
 *   npm run build && node dist/scripts/bench-webhooks.js      (or: npm run bench:webhooks)
 *
 * Loopback only, in a temporary folder removed at the end: an embedded PostgreSQL, and child
 * processes of this script (`--child <kind>`): the receiver (a certificate of the test CA in
 * test/fixtures/tls, trusted by the workers via NODE_EXTRA_CA_CERTS) and the workers. The two kinds
 * of worker use a database each (no job, notification or dead row of one reaches the other) and
 * run side by side for the whole of a process count; each phase is timed from the commit of its
 * jobs until graphile-worker has completed the last one. The phases are interleaved as in
 * bench:build: an untimed warm-up round, then BENCH_ROUNDS rounds (every other one in reverse
 * order), each starting from a vacuumed and checkpointed database, so that a slow spell of a
 * shared machine or a checkpoint falls on both sides of the ratio. Next to the rates: the CPU
 * milliseconds per job of PostgreSQL, the workers and the receiver (Linux /proc), and the workers'
 * peak RSS; the ratio printed first is the median of the rounds' ratios. Knobs (defaults):
 * BENCH_JOBS (3000 per phase and round), BENCH_ROUNDS (4), BENCH_WARMUP (3000), BENCH_CONCURRENCY
 * (WORKER_CONCURRENCY of each process; Laurel's default, 32).
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import { Pool } from 'pg';
import { DEFAULT_WORKER_CONCURRENCY, loadConfig } from '../src/config';
import { connectDatabase, type PrismaClient } from '../src/db/prisma';
import { migrate } from '../src/db/migrator';
import { startEmbeddedPostgres } from '../src/embedded/postgres';
import { jobs } from '../src/jobs/jobs';
import { emitWebhookEvent } from '../src/modules/webhooks/webhooks.repository';
import { createLogger } from '../src/logger';
import { migrateWorkerSchema, startJobWorker, workerRunOptions } from '../src/jobs/worker';
import { startLaurel } from '../src/server/laurel';
import { createServerCertificate } from '../src/modules/webhooks/certificates';
import { envInt } from './lib/env';
import { MB, rssHighWaterMark } from './lib/local-laurel';
import { median } from './lib/percentile';
import { processTreeCpuSeconds } from './lib/process-cpu';
import { printTopStatements, resetStatementStats, statementStatsSettings } from './lib/statement-stats';
import { runBenchmark } from './lib/ipc-child';

const EMPTY_TASK = 'bench__empty';
const root = process.cwd();
const caFile = path.join(root, 'test/fixtures/tls/test-ca.pem');
const testCa = () => ({
  cert: readFileSync(caFile, 'utf8'),
  key: readFileSync(caFile.replace(/\.pem$/, '.key'), 'utf8'),
});

const jobsPerPhase = envInt('BENCH_JOBS', 3000, 100_000);
const rounds = envInt('BENCH_ROUNDS', 4, 20);
// The warm-up must reach every worker of every process and every pooled connection a few dozen
// times (V8 compiles the hot paths, PostgreSQL settles each connection's prepared statements on a
// generic plan). 200 left both rates far lower (empty jobs 2,000/s instead of 3,300-4,100/s).
const warmup = envInt('BENCH_WARMUP', 3000, 100_000);
const concurrency = envInt('BENCH_CONCURRENCY', DEFAULT_WORKER_CONCURRENCY, 64);

/** The child processes: the two kinds of worker, and the HTTPS receiver (a process of its own). */
type ChildKind = 'empty' | 'webhooks' | 'receiver';
type WorkerKind = Exclude<ChildKind, 'receiver'>;

/** Child mode: until SIGTERM, run workers of one kind on DATABASE_URL, or the receiver; print "ready <port>". */
async function runChild(kind: ChildKind): Promise<void> {
  let stop: () => Promise<void>;
  let port = 0;
  const config = () => loadConfig({ ...process.env, PORT: '0', WORKER_CONCURRENCY: String(concurrency) });
  if (kind === 'receiver') {
    const receiver = createServer(await createServerCertificate(testCa()), (request, response) => {
      request
        .resume()
        .on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
    stop = async () => void receiver.close();
  } else if (kind === 'empty') {
    // Laurel's worker (pool, options) with one task that does nothing.
    const { workerConcurrency, workerPoolSize, workerGoneAfterSeconds } = config();
    const worker = await startJobWorker({
      databaseUrl: process.env.DATABASE_URL!,
      concurrency: workerConcurrency,
      poolSize: workerPoolSize,
      log: createLogger('warn'),
      taskList: { [EMPTY_TASK]: async () => undefined },
      crontab: '',
      metrics: null,
      goneAfterSeconds: workerGoneAfterSeconds,
      onDatabaseBack: async () => undefined,
    });
    stop = () => worker.stop();
  } else {
    const laurel = await startLaurel(config(), { log: createLogger('warn') });
    stop = () => laurel.stop();
  }
  process.once('SIGTERM', () => void stop().then(() => process.exit(0)));
  console.log(`ready ${port}`);
}

/** Starts a child process of `kind`; resolves once it is ready, with the port it printed. */
async function startChild(
  kind: ChildKind,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...process.execArgv, __filename, '--child', kind], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const ready = /ready (\d+)/.exec(chunk.toString());
      if (ready) resolve(Number(ready[1]));
    });
    child.once('exit', (code) => reject(new Error(`${kind} process exited with ${code}`)));
  });
  // Not left running when this process ends early (a failed phase exits it).
  process.once('exit', () => child.kill());
  return { child, port };
}

async function stopChildren(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.removeAllListeners('exit');
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** What the phases of one kind of worker add up to. */
interface Totals {
  jobs: number;
  seconds: number;
  cpuSeconds: { postgres: number; workers: number; receiver: number } | undefined;
  /** Jobs per second of each timed round. */
  rates: number[];
}

/** One kind of worker: its processes, its database, how its jobs are enqueued and counted. */
interface Side {
  kind: WorkerKind;
  workers: ChildProcess[];
  /** A connection pool on the kind's database. */
  pool: Pool;
  enqueue: (count: number) => Promise<void>;
  task: string;
  totals: Totals;
}

function cpuReading(pids: { postgres: number; receiver: number }, workers: ChildProcess[]) {
  const [postgres, workerCpu, receiver] = [
    [pids.postgres],
    workers.map((worker) => worker.pid!),
    [pids.receiver],
  ].map(processTreeCpuSeconds);
  return postgres === undefined ? undefined : { postgres, workers: workerCpu!, receiver: receiver! };
}

/** Resolves once `count()` is 0, asked every 10 ms. */
async function untilNone(count: () => Promise<number>): Promise<void> {
  while ((await count()) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Jobs of `task` still in graphile-worker's queue (a job leaves it when its task completed). */
async function queuedJobs(pool: Pool, task: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>({
    name: 'queued_jobs',
    text: 'SELECT count(*) AS n FROM graphile_worker.jobs WHERE task_identifier = $1',
    values: [task],
  });
  return Number(rows[0]!.n);
}

/**
 * One phase of `side`: `count` jobs from the commit of their enqueue (which makes them all visible
 * at once) until the last one is done. Timed (added to the side's totals) unless a warm-up. Starts
 * from a vacuumed database (the dead rows of earlier phases gone) after a checkpoint (none falls
 * inside the phase unless it is long).
 */
async function runPhase(
  side: Side,
  count: number,
  timed: boolean,
  pids: { postgres: number; receiver: number },
): Promise<void> {
  await side.pool.query('VACUUM (ANALYZE)');
  await side.pool.query('CHECKPOINT');
  await side.enqueue(count);
  const began = process.hrtime.bigint();
  const cpuBefore = cpuReading(pids, side.workers);
  await untilNone(() => queuedJobs(side.pool, side.task));
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const cpuAfter = cpuReading(pids, side.workers);
  if (!timed) return;
  const { totals } = side;
  totals.jobs += count;
  totals.seconds += seconds;
  totals.rates.push(count / seconds);
  if (cpuBefore && cpuAfter) {
    const spent = (key: 'postgres' | 'workers' | 'receiver') => cpuAfter[key] - cpuBefore[key];
    const sum = totals.cpuSeconds ?? { postgres: 0, workers: 0, receiver: 0 };
    totals.cpuSeconds = {
      postgres: sum.postgres + spent('postgres'),
      workers: sum.workers + spent('workers'),
      receiver: sum.receiver + spent('receiver'),
    };
  }
}

const emptyTotals = (): Totals => ({ jobs: 0, seconds: 0, cpuSeconds: undefined, rates: [] });

function emptySide(pool: Pool, workers: ChildProcess[]): Side {
  return {
    kind: 'empty',
    workers,
    pool,
    task: EMPTY_TASK,
    totals: emptyTotals(),
    enqueue: async (count) => {
      await pool.query(
        `SELECT graphile_worker.add_jobs(array_agg(($1, '{}'::json,
           null, null, null, null, null, null)::graphile_worker.job_spec)) FROM generate_series(1, $2::int)`,
        [EMPTY_TASK, count],
      );
    },
  };
}

function deliveriesSide(
  prisma: PrismaClient,
  pool: Pool,
  workers: ChildProcess[],
  accountAddress: string,
): Side {
  return {
    kind: 'webhooks',
    workers,
    pool,
    task: jobs.deliverWebhook.name,
    totals: emptyTotals(),
    enqueue: async (count) => {
      // All events in one transaction: every delivery job becomes visible at the same instant.
      await prisma.$transaction(
        async (db) => {
          for (let i = 0; i < count; i++) {
            await emitWebhookEvent(db, { accountAddress, event: 'transaction', payload: { i } });
          }
        },
        { timeout: 120_000 },
      );
    },
  };
}

/**
 * Both kinds of worker with `processes` processes each, side by side: a warm-up round, then
 * BENCH_ROUNDS timed rounds of one phase of each kind (every other round in reverse order).
 */
async function compare(
  processes: number,
  start: (kind: WorkerKind, count: number) => Promise<ChildProcess[]>,
  makeSides: (empty: ChildProcess[], deliveries: ChildProcess[]) => [Side, Side],
  pids: { postgres: number; receiver: number },
  /** BENCH_STATEMENTS=1: the statements of the timed rounds are counted on this server. */
  statementsUrl: string,
): Promise<{ empty: Side; deliveries: Side; peakRss: Record<WorkerKind, number> }> {
  const emptyWorkers = await start('empty', processes);
  const deliveryWorkers = await start('webhooks', processes).catch(async (error: unknown) => {
    await stopChildren(emptyWorkers);
    throw error;
  });
  try {
    const [empty, deliveries] = makeSides(emptyWorkers, deliveryWorkers);
    for (let round = 0; round <= rounds; round++) {
      for (const side of round % 2 === 0 ? [empty, deliveries] : [deliveries, empty]) {
        await runPhase(side, round === 0 ? warmup : jobsPerPhase, round > 0, pids);
      }
      if (round === 0) await resetStatementStats(statementsUrl);
    }
    const peak = (workers: ChildProcess[]) =>
      Math.max(...workers.map((worker) => rssHighWaterMark(worker.pid!) ?? 0));
    return { empty, deliveries, peakRss: { empty: peak(emptyWorkers), webhooks: peak(deliveryWorkers) } };
  } finally {
    await stopChildren([...emptyWorkers, ...deliveryWorkers]);
  }
}

function summary(side: Side): { perSecond: number; cpu: string | undefined } {
  const { jobs: count, seconds, cpuSeconds } = side.totals;
  const ms = (value: number) => ((value * 1000) / count).toFixed(2);
  return {
    perSecond: count / seconds,
    cpu:
      cpuSeconds &&
      `postgres ${ms(cpuSeconds.postgres)}, workers ${ms(cpuSeconds.workers)}, receiver ${ms(cpuSeconds.receiver)}`,
  };
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'laurel-bench-webhooks-'));
  chmodSync(scratch, 0o755);
  // Both kinds' pools are open at once (2 processes each of a worker pool of concurrency + 2, and
  // Laurel's main pools). No autovacuum: it would fall inside some phases and not others (it also
  // holds back the pruning of graphile-worker's dead job rows); each phase starts vacuumed instead.
  const postgres = await startEmbeddedPostgres({
    dataDir: scratch,
    database: 'laurel',
    persistent: false,
    settings: ['max_connections=300', 'autovacuum=off', ...statementStatsSettings],
  });
  const receiver = await startChild('receiver', {});
  const { prisma, pool } = connectDatabase(postgres.databaseUrl);
  // The empty jobs' database, on the same server.
  const emptyDatabaseUrl = new URL(postgres.databaseUrl);
  emptyDatabaseUrl.pathname = '/laurel_empty';
  await pool.query('CREATE DATABASE laurel_empty');
  const emptyPool = new Pool({ connectionString: emptyDatabaseUrl.toString(), max: 2 });
  try {
    await migrate(postgres.databaseUrl);
    for (const connectionString of [postgres.databaseUrl, emptyDatabaseUrl.toString()]) {
      await migrateWorkerSchema(connectionString, createLogger('warn'));
    }
    const accountAddress = Wallet.createRandom().address;
    await prisma.account.create({ data: { address: accountAddress } });
    await prisma.webhook.create({
      data: {
        accountAddress,
        url: `https://127.0.0.1:${receiver.port}/hook`,
        events: [],
        disabled: false,
      },
    });
    const env = {
      NODE_EXTRA_CA_CERTS: caFile,
      LOCAL_CHAIN: 'off',
      CHAINS: '[]',
      LOG_LEVEL: 'warn',
      DATA_DIR: scratch,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    const options = workerRunOptions(concurrency);
    console.log(
      `webhook deliveries vs empty graphile-worker jobs: ${rounds} interleaved rounds of ${jobsPerPhase} jobs ` +
        `per kind, after ${warmup} of each to warm up\n` +
        `both kinds: startJobWorker (src/jobs/worker.ts), concurrency ${options.concurrency} per process, ` +
        `pollInterval ${options.pollInterval} ms, no localQueue, no completeJobBatchDelay, a database each`,
    );
    const pids = { postgres: postgres.pid, receiver: receiver.child.pid! };
    const start = async (kind: WorkerKind, count: number) => {
      const databaseUrl = kind === 'empty' ? emptyDatabaseUrl.toString() : postgres.databaseUrl;
      const started = await Promise.all(
        Array.from({ length: count }, () => startChild(kind, { ...env, DATABASE_URL: databaseUrl })),
      );
      return started.map(({ child }) => child);
    };
    for (const processes of [1, 2]) {
      const { empty, deliveries, peakRss } = await compare(
        processes,
        start,
        (emptyWorkers, deliveryWorkers) => [
          emptySide(emptyPool, emptyWorkers),
          deliveriesSide(prisma, pool, deliveryWorkers, accountAddress),
        ],
        pids,
        postgres.databaseUrl,
      );
      await printTopStatements(postgres.databaseUrl, 16, true);
      const failed = await prisma.webhookLog.findMany({
        where: { successful: false },
        select: { responseCode: true, errorMessage: true, durationMs: true },
        take: 3,
      });
      if (failed.length > 0) throw new Error(`delivery attempts failed, e.g. ${JSON.stringify(failed)}`);
      const pending = await prisma.webhookDelivery.count({ where: { status: { not: 'succeeded' } } });
      if (pending) throw new Error(`${pending} deliveries did not succeed`);
      const [emptyRate, deliveryRate] = [summary(empty), summary(deliveries)];
      // Each round's two phases ran back to back: the median of the rounds' ratios is not moved by
      // one phase that a busy spell of the machine slowed down (their totals are).
      const roundRatios = deliveries.totals.rates.map((rate, i) => rate / empty.totals.rates[i]!);
      console.log(
        `  ${processes} worker process${processes > 1 ? 'es' : ''}:  empty jobs ${emptyRate.perSecond.toFixed(0)}/s   ` +
          `deliveries ${deliveryRate.perSecond.toFixed(0)}/s   ` +
          `ratio ${median(roundRatios).toFixed(2)} (target >= 0.70; median of the rounds' ratios, ` +
          `${Math.min(...roundRatios).toFixed(2)}-${Math.max(...roundRatios).toFixed(2)}; ` +
          `of the totals ${(deliveryRate.perSecond / emptyRate.perSecond).toFixed(2)})`,
      );
      // Each round's pair, so that a run says how much the machine moved under it (the same
      // phase's rate can move by half from one round to the next on a shared machine).
      console.log(
        `      rounds, deliveries / empty jobs per second: ` +
          deliveries.totals.rates
            .map((rate, i) => `${rate.toFixed(0)} / ${empty.totals.rates[i]!.toFixed(0)}`)
            .join(', '),
      );
      if (emptyRate.cpu) {
        console.log(`      CPU ms per empty job: ${emptyRate.cpu}`);
        console.log(`      CPU ms per delivery:  ${deliveryRate.cpu}`);
      }
      console.log(
        `      peak RSS of a worker process: ${(peakRss.webhooks / MB).toFixed(0)} MB Laurel, ` +
          `${(peakRss.empty / MB).toFixed(0)} MB empty jobs`,
      );
    }
  } finally {
    await emptyPool.end();
    await prisma.$disconnect();
    await pool.end();
    await stopChildren([receiver.child]);
    await postgres.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

runBenchmark(main, (kind) => runChild(kind as ChildKind));
