/**
 * Webhook delivery throughput: deliveries per second from Laurel worker processes to a local HTTPS
 * receiver (sign, POST over TLS, log the attempt and mark the delivery, all as in production),
 * with 1 and with 2 worker processes, next to a baseline measured in the same run on the same
 * database: graphile-worker's own throughput for empty jobs with the same processes and
 * concurrency. Prints both and their ratio (target: deliveries at least half the empty-job rate).
 *
 *   npm run build && node dist/scripts/bench-webhooks.js      (or: npm run bench:webhooks)
 *
 * Loopback only, in a temporary folder removed at the end: an embedded PostgreSQL, and child
 * processes of this script (`--child <kind>`): the receiver (a certificate of the test CA in
 * test/fixtures/tls, trusted by the workers via NODE_EXTRA_CA_CERTS) and the workers. Both kinds
 * of worker run with the same graphile-worker options (workerRunOptions) and are timed the same way:
 * from the commit of the phase's jobs until graphile-worker has completed the last one, after an
 * untimed warm-up batch. Next to the rates: the CPU milliseconds per job of PostgreSQL, the workers
 * and the receiver (Linux /proc). Knobs (defaults): BENCH_JOBS (3000 per phase), BENCH_WARMUP (3000),
 * BENCH_CONCURRENCY (WORKER_CONCURRENCY of each process; Laurel's default, 32).
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
import { run, runMigrations, Logger as WorkerLogger } from 'graphile-worker';
import { DEFAULT_WORKER_CONCURRENCY, loadConfig } from '../src/config';
import { connectDatabase, type PrismaClient } from '../src/db/prisma';
import { migrate } from '../src/db/migrator';
import { startEmbeddedPostgres } from '../src/embedded/postgres';
import { jobs } from '../src/jobs/jobs';
import { emitWebhookEvent } from '../src/modules/webhooks/webhooks.repository';
import { createLogger } from '../src/logger';
import { workerRunOptions } from '../src/jobs/worker';
import { startLaurel } from '../src/server/laurel';
import { createServerCertificate } from '../src/modules/webhooks/certificates';
import { envInt } from './lib/env';
import { processTreeCpuSeconds } from './lib/process-cpu';
import { runBenchmark } from './lib/ipc-child';

const EMPTY_TASK = 'bench__empty';
const root = process.cwd();
const caFile = path.join(root, 'test/fixtures/tls/test-ca.pem');
const testCa = () => ({
  cert: readFileSync(caFile, 'utf8'),
  key: readFileSync(caFile.replace(/\.pem$/, '.key'), 'utf8'),
});

const jobsPerPhase = envInt('BENCH_JOBS', 3000, 100_000);
// The warm-up must reach every worker of every process and every pooled connection a few dozen
// times (V8 compiles the hot paths, PostgreSQL settles each connection's prepared statements on a
// generic plan). 200 left both rates far lower (empty jobs 2,000/s instead of 3,300-4,100/s).
const warmup = envInt('BENCH_WARMUP', 3000, 100_000);
const concurrency = envInt('BENCH_CONCURRENCY', DEFAULT_WORKER_CONCURRENCY, 64);

/** The child processes: the two kinds of worker, and the HTTPS receiver (a process of its own). */
type ChildKind = 'empty' | 'webhooks' | 'receiver';

/** Child mode: until SIGTERM, run workers of one kind on DATABASE_URL, or the receiver; print "ready <port>". */
async function runChild(kind: ChildKind): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL!;
  let stop: () => Promise<void>;
  let port = 0;
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
    const runner = await run({
      connectionString: databaseUrl,
      ...workerRunOptions(concurrency),
      taskList: { [EMPTY_TASK]: async () => undefined },
      logger: new WorkerLogger(() => () => undefined),
    });
    stop = () => runner.stop();
  } else {
    const config = loadConfig({ ...process.env, PORT: '0', WORKER_CONCURRENCY: String(concurrency) });
    const laurel = await startLaurel(config, { log: createLogger('warn') });
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
  return { child, port };
}

async function startWorkers(kind: ChildKind, count: number, env: NodeJS.ProcessEnv): Promise<ChildProcess[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startChild(kind, env)));
  return started.map(({ child }) => child);
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

/** The processes whose CPU a phase reports: PostgreSQL (all its backends), the workers, the receiver. */
interface Measured {
  postgres: number;
  workers: number[];
  receiver: number;
}

/** A phase's rate and the CPU milliseconds each kind of process spent per job. */
interface PhaseResult {
  perSecond: number;
  cpuMsPerJob: { postgres: number; workers: number; receiver: number } | undefined;
}

function cpuReading(measured: Measured) {
  const [postgres, workers, receiver] = [[measured.postgres], measured.workers, [measured.receiver]].map(
    processTreeCpuSeconds,
  );
  return postgres === undefined ? undefined : { postgres, workers: workers!, receiver: receiver! };
}

/** Resolves once `count()` is 0, asked every 20 ms. */
async function untilNone(count: () => Promise<number>): Promise<void> {
  while ((await count()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Jobs per second from the commit of `enqueue()` (which makes all its jobs visible at once) until
 * `remaining()` reaches 0 (polled every 20 ms), and the CPU each process spent meanwhile.
 */
async function timeUntilDone(
  measured: Measured,
  enqueue: () => Promise<void>,
  remaining: () => Promise<number>,
): Promise<PhaseResult> {
  await enqueue();
  const began = process.hrtime.bigint();
  const cpuBefore = cpuReading(measured);
  await untilNone(remaining);
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const cpuAfter = cpuReading(measured);
  const perJob = (key: 'postgres' | 'workers' | 'receiver') =>
    ((cpuAfter![key] - cpuBefore![key]) * 1000) / jobsPerPhase;
  return {
    perSecond: jobsPerPhase / seconds,
    cpuMsPerJob: cpuAfter && {
      postgres: perJob('postgres'),
      workers: perJob('workers'),
      receiver: perJob('receiver'),
    },
  };
}

/** Jobs of `task` still in graphile-worker's queue (a job leaves it when its task completed). */
async function queuedJobs(prisma: PrismaClient, task: string): Promise<number> {
  const [row] = await prisma.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM graphile_worker.jobs WHERE task_identifier = ${task}`;
  return Number(row!.n);
}

/**
 * One phase: starts `processes` workers of `kind`, warms them up with BENCH_WARMUP jobs (untimed:
 * both kinds are measured with their code compiled), then times BENCH_JOBS jobs of `task` from
 * their enqueue until graphile-worker has completed the last one. Both kinds are timed the same way.
 */
async function phase(options: {
  prisma: PrismaClient;
  kind: 'empty' | 'webhooks';
  task: string;
  processes: number;
  env: NodeJS.ProcessEnv;
  pids: Omit<Measured, 'workers'>;
  enqueue: (count: number) => Promise<void>;
}): Promise<PhaseResult> {
  const { prisma, task } = options;
  const workers = await startWorkers(options.kind, options.processes, options.env);
  try {
    await options.enqueue(warmup);
    await untilNone(() => queuedJobs(prisma, task));
    return await timeUntilDone(
      { ...options.pids, workers: workers.map((worker) => worker.pid!) },
      () => options.enqueue(jobsPerPhase),
      () => queuedJobs(prisma, task),
    );
  } finally {
    await stopChildren(workers);
  }
}

function emptyJobsPhase(
  prisma: PrismaClient,
  databaseUrl: string,
  processes: number,
  pids: Omit<Measured, 'workers'>,
): Promise<PhaseResult> {
  return phase({
    prisma,
    kind: 'empty',
    task: EMPTY_TASK,
    processes,
    env: { DATABASE_URL: databaseUrl },
    pids,
    enqueue: async (count) => {
      await prisma.$executeRaw`SELECT graphile_worker.add_jobs(array_agg((${EMPTY_TASK}, '{}'::json,
        null, null, null, null, null, null)::graphile_worker.job_spec)) FROM generate_series(1, ${count}::int)`;
    },
  });
}

async function deliveriesPhase(
  prisma: PrismaClient,
  env: NodeJS.ProcessEnv,
  accountAddress: string,
  processes: number,
  pids: Omit<Measured, 'workers'>,
): Promise<PhaseResult> {
  const result = await phase({
    prisma,
    kind: 'webhooks',
    task: jobs.deliverWebhook.name,
    processes,
    env,
    pids,
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
  });
  const failed = await prisma.webhookLog.count({ where: { successful: false } });
  if (failed) throw new Error(`${failed} delivery attempts failed`);
  const pending = await prisma.webhookDelivery.count({ where: { status: { not: 'succeeded' } } });
  if (pending) throw new Error(`${pending} deliveries did not succeed`);
  return result;
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'laurel-bench-webhooks-'));
  chmodSync(scratch, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, database: 'laurel', persistent: false });
  const receiver = await startChild('receiver', {});
  const { prisma, pool } = connectDatabase(postgres.databaseUrl);
  try {
    await migrate(postgres.databaseUrl);
    await runMigrations({
      connectionString: postgres.databaseUrl,
      logger: new WorkerLogger(() => () => undefined),
    });
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
      DATABASE_URL: postgres.databaseUrl,
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
      `webhook deliveries vs empty graphile-worker jobs: ${jobsPerPhase} per phase after ${warmup} to warm up\n` +
        `graphile-worker options of both (src/jobs/worker.ts): concurrency ${options.concurrency} per process, ` +
        `pollInterval ${options.pollInterval} ms, no localQueue, no completeJobBatchDelay`,
    );
    const pids = { postgres: postgres.pid, receiver: receiver.child.pid! };
    const cpuLine = ({ cpuMsPerJob: cpu }: PhaseResult) =>
      cpu &&
      `postgres ${cpu.postgres.toFixed(2)}, workers ${cpu.workers.toFixed(2)}, receiver ${cpu.receiver.toFixed(2)}`;
    for (const processes of [1, 2]) {
      const empty = await emptyJobsPhase(prisma, postgres.databaseUrl, processes, pids);
      const deliveries = await deliveriesPhase(prisma, env, accountAddress, processes, pids);
      console.log(
        `  ${processes} worker process${processes > 1 ? 'es' : ''}:  empty jobs ${empty.perSecond.toFixed(0)}/s   ` +
          `deliveries ${deliveries.perSecond.toFixed(0)}/s   ` +
          `ratio ${(deliveries.perSecond / empty.perSecond).toFixed(2)} (target >= 0.50)`,
      );
      if (empty.cpuMsPerJob) {
        console.log(`      CPU ms per empty job: ${cpuLine(empty)}`);
        console.log(`      CPU ms per delivery:  ${cpuLine(deliveries)}`);
      }
    }
  } finally {
    await prisma.$disconnect();
    await pool.end();
    await stopChildren([receiver.child]);
    await postgres.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

runBenchmark(main, (kind) => runChild(kind as ChildKind));
