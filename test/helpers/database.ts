import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client, Pool } from 'pg';
import { connectionConfig } from '../../src/db/connection';
import { processIds, processIsAlive, processStatFields } from '../../src/embedded/processes';
import { WORKER_POOL_NAME, WORKER_SESSION_NAME_PREFIX } from '../../src/jobs/worker-names';
import { waitUntil } from './wait';

/** A variable the global setup sets for the run (global-setup.ts). */
export function setByGlobalSetup(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest (its global setup sets it)`);
  return value;
}

export function testServerUrl(): string {
  return setByGlobalSetup('TEST_DATABASE_URL');
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function createDatabase(
  prefix: string,
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const server = testServerUrl();
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  // PostgreSQL's default strategy (WAL_LOG): FILE_COPY copies faster alone, but its two
  // checkpoints per copy slow the files running beside it as much.
  await admin
    .query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`)
    .finally(() => admin.end());
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

/** What an operator can do to a database that Laurel still reaches, and how it is undone. */
const RESTRICTIONS = {
  /** Closed to new connections (ALLOW_CONNECTIONS false), as during an operator's maintenance. */
  closed: ['WITH ALLOW_CONNECTIONS false', 'WITH ALLOW_CONNECTIONS true'],
  /**
   * Refusing writes (default_transaction_read_only), as a managed database whose disk fills, or a
   * standby that DATABASE_URL still names after a failover, answers: SQLSTATE 25006.
   */
  'read-only': ['SET default_transaction_read_only = on', 'RESET default_transaction_read_only'],
} as const;

/**
 * Restricts the database at `url` and cuts the connections open (they reconnect under the
 * restriction), but the job worker's; the function returned lifts it. The worker's are spared:
 * graphile-worker 0.17 records a job's outcome without awaiting it, so a job ending on a cut
 * connection rejects unhandled, which the process absorbs (src/main.ts) but which fails the jest
 * run Laurel is in. The worker's own outages are tested on the service (database-outage.test.ts)
 * and on a server of their own (job-worker-stall.test.ts, job-session-loss.test.ts).
 */
export async function restrictDatabase(
  url: string,
  restriction: keyof typeof RESTRICTIONS,
): Promise<() => Promise<void>> {
  const name = new URL(url).pathname.slice(1);
  const [restrict, lift] = RESTRICTIONS[restriction];
  const admin = new Client({ connectionString: testServerUrl() });
  await admin.connect();
  const undo = async () => {
    await admin.query(`ALTER DATABASE "${name}" ${lift}`);
    await admin.end();
  };
  try {
    await admin.query(`ALTER DATABASE "${name}" ${restrict}`);
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = $1 AND application_name <> $2 AND application_name NOT LIKE $3 || '%'`,
      [name, WORKER_POOL_NAME, WORKER_SESSION_NAME_PREFIX],
    );
  } catch (error) {
    await undo();
    throw error;
  }
  return undo;
}

/** A fresh, empty database of its own for one test file (for tests of the migrations themselves). */
export function createEmptyDatabase(prefix = 'laurel_test'): Promise<{ url: string; drop(): Promise<void> }> {
  return createDatabase(prefix);
}

/**
 * A fresh database with every migration applied (Laurel's and graphile-worker's): a copy of the
 * template the global setup migrated once for the run.
 */
export function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return createDatabase('laurel_test', setByGlobalSetup('TEST_TEMPLATE_DATABASE'));
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

/**
 * SIGKILLs a postmaster and waits until its server processes have exited too. Each notices the
 * postmaster's death on its own, a moment later on a busy machine, and a session still open
 * meanwhile answers queries: a test that needs the database gone waits for this.
 */
export async function killPostmaster(pid: number): Promise<void> {
  // Field 4 of /proc/<pid>/stat: the parent.
  const serverProcesses = processIds().filter((child) => Number(processStatFields(child)?.[1]) === pid);
  process.kill(pid, 'SIGKILL');
  await waitUntil('the postmaster and its server processes gone', () =>
    [pid, ...serverProcesses].every((gone) => !processIsAlive(gone)),
  );
}

/**
 * Runs `body` while the Laurel process's LISTEN session on `url`'s database hears nothing: its
 * server process is stopped (SIGSTOP), as a slow session or network holds notifications back. It is
 * stopped only while it waits for its client (in epoll): stopped while it reads the notification
 * queue, it would hold the queue's lock, and every commit that notifies would wait for it.
 */
export async function withNotificationsHeldBack(url: string, body: () => Promise<void>): Promise<void> {
  const db = new Client(connectionConfig(url));
  await db.connect();
  let pid: number;
  try {
    const { rows } = await db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN laurel%'`,
    );
    if (rows.length !== 1) throw new Error(`${rows.length} LISTEN sessions of Laurel, not one`);
    pid = rows[0].pid;
  } finally {
    await db.end();
  }
  await waitUntil('the LISTEN session stopped while it waits for its client', async () => {
    process.kill(pid, 'SIGSTOP');
    await waitUntil('the server process to stop', () => processStatFields(pid)?.[0] === 'T');
    if (waitsForClient(pid)) return true;
    process.kill(pid, 'SIGCONT');
    return false;
  });
  try {
    await body();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** epoll_wait, epoll_pwait and epoll_pwait2: how a PostgreSQL server process waits for its client. */
const EPOLL_SYSCALLS: Record<string, number[]> = { x64: [232, 281, 441], arm64: [22, 441] };

/** Whether the stopped process `pid` was stopped inside an epoll wait (/proc/<pid>/syscall). */
function waitsForClient(pid: number): boolean {
  const syscall = Number(readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ')[0]);
  return (EPOLL_SYSCALLS[process.arch] ?? []).includes(syscall);
}
