/**
 * PostgreSQL as production runs it, for the tests of Laurel's production database settings:
 * Debian's PostgreSQL (`postgresql` package, 15) as a throwaway primary with TLS, one streaming
 * replica of it (pg_basebackup -R), and Debian's PgBouncer in transaction mode in front of the
 * primary. Everything lives in one temporary folder and listens on free loopback ports; as root the
 * servers run as the `postgres` user. Each server is tied to the test process by the watchdog
 * (src/embedded/watchdog.ts), so nothing outlives a test run that dies; stop() stops them and
 * removes the folder.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from '../../src/embedded/ports';
import { stopProcess } from '../../src/embedded/processes';
import { guardChildProcess } from '../../src/embedded/watchdog';
import {
  createCertificateAuthority,
  createServerCertificate,
  type PemPair,
} from '../../src/modules/webhooks/certificates';
import { waitUntil } from './wait';

const run = promisify(execFile);

/** Debian's PostgreSQL server binaries (PG_BIN_DIR elsewhere). */
const POSTGRES_BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';
const runsAsRoot = process.getuid?.() === 0;
const USER = 'postgres';

/** Why these tests cannot run here (missing binaries), or null when they can. */
export function productionPostgresMissing(): string | null {
  const missing = [
    path.join(POSTGRES_BIN, 'initdb'),
    path.join(POSTGRES_BIN, 'pg_basebackup'),
    PGBOUNCER,
  ].filter((file) => !existsSync(file));
  return missing.length
    ? `not installed: ${missing.join(', ')} (apt-get install postgresql pgbouncer)`
    : null;
}

/** Runs a server binary as the `postgres` user (as root), else as this user. */
async function asPostgres(file: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const [command, commandArgs] = runsAsRoot ? ['runuser', ['-u', USER, '--', file, ...args]] : [file, args];
  try {
    const { stdout } = await run(command, commandArgs, { env: { ...process.env, ...env } });
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${path.basename(file)} ${args.join(' ')} failed: ${stderr || stdout || String(error)}`);
  }
}

/** The `postgres` user's ids (as root), to hand it the files it must own. */
function postgresOwner(): { uid: number; gid: number } | null {
  if (!runsAsRoot) return null;
  const [uid, gid] = ['-u', '-g'].map((flag) =>
    Number(execFileSync('id', [flag, USER], { encoding: 'utf8' })),
  );
  return { uid, gid };
}

export interface PostgresServer {
  port: number;
  dataDirectory: string;
  /** The postmaster's pid (changes when restarted). */
  pid: number;
}

export interface ProductionDatabase {
  name: string;
  /** A session connection to the primary (DATABASE_DIRECT_URL). */
  directUrl: string;
  /** Through PgBouncer in transaction mode (DATABASE_URL). */
  poolerUrl: string;
  /** The streaming replica (DATABASE_READ_URL). */
  replicaUrl: string;
  drop(): Promise<void>;
}

export interface ProductionPostgres {
  primary: PostgresServer;
  replica: PostgresServer;
  pooler: { port: number; pid: number };
  /** The CA that signed the primary's (and replica's) certificate for 127.0.0.1 and localhost. */
  caFile: string;
  /** The superuser's password (user `postgres`). */
  password: string;
  /** A URL of the superuser on `port` (a server or the pooler), database `database`. */
  url(port: number, database: string, params?: Record<string, string>): string;
  /** A fresh database, created on the primary (and so on the replica). */
  createDatabase(prefix?: string): Promise<ProductionDatabase>;
  /** Stops replaying WAL on the replica (it still receives it): a replica made to lag. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica (fast shutdown) and starts it again. */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** PgBouncer's SHOW STATS (admin console) for one database. */
  poolerStats(database: string): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/** Starts primary, replica and PgBouncer; on a failure half-way, stops what had started. */
export async function startProductionPostgres(): Promise<ProductionPostgres> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'laurel-production-pg-'));
  chmodSync(root, 0o755);
  const owner = postgresOwner();
  const own = (file: string) => owner && chownSync(file, owner.uid, owner.gid);
  own(root);
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  /** The watchdog's hold on each running server (released before Laurel's own stop). */
  const guards = new Map<PostgresServer | 'pooler', () => void>();
  const stops: (() => Promise<void>)[] = [];
  const url = (port: number, database: string, params: Record<string, string> = {}) => {
    const query = new URLSearchParams(params).toString();
    return `postgresql://${USER}:${password}@127.0.0.1:${port}/${database}${query ? `?${query}` : ''}`;
  };

  const writeOwned = (file: string, text: string, mode = 0o600) => {
    writeFileSync(file, text, { mode });
    own(file);
  };

  /** pg_ctl start as `postgres`; the postmaster is guarded by the watchdog and stopped by stop(). */
  const startServer = async (server: PostgresServer): Promise<void> => {
    await asPostgres(path.join(POSTGRES_BIN, 'pg_ctl'), [
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      server.dataDirectory,
      '-l',
      `${server.dataDirectory}.log`,
    ]);
    server.pid = Number(
      readFileSync(path.join(server.dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    guards.set(server, guardChildProcess(server.pid, 'SIGINT'));
  };
  const stopServer = async (server: PostgresServer): Promise<void> => {
    // SIGINT: fast shutdown (clients are disconnected, no wait).
    await stopProcess(server.pid, 'SIGINT', 30_000);
    guards.get(server)?.();
    guards.delete(server);
  };

  try {
    const ca = await createCertificateAuthority('Laurel test CA (PostgreSQL)');
    const certificate: PemPair = await createServerCertificate(ca);
    const caFile = path.join(root, 'ca.pem');
    writeFileSync(caFile, ca.cert, { mode: 0o644 });

    // The primary: scram-sha-256 over TCP (as a managed server), TLS on, replication allowed.
    // Ports are chosen just before their server starts: a port chosen before initdb's seconds could
    // meanwhile become the local port of one of the machine's outgoing connections.
    const primary: PostgresServer = { port: -1, dataDirectory: path.join(root, 'primary'), pid: -1 };
    const passwordFile = path.join(root, 'password');
    writeOwned(passwordFile, password);
    await asPostgres(path.join(POSTGRES_BIN, 'initdb'), [
      '-D',
      primary.dataDirectory,
      '-U',
      USER,
      `--pwfile=${passwordFile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    writeOwned(path.join(primary.dataDirectory, 'server.crt'), certificate.cert);
    writeOwned(path.join(primary.dataDirectory, 'server.key'), certificate.key);
    primary.port = await freePort();
    const settings = [
      "listen_addresses = '127.0.0.1'",
      `port = ${primary.port}`,
      "unix_socket_directories = ''",
      'max_connections = 300',
      'ssl = on',
      "ssl_cert_file = 'server.crt'",
      "ssl_key_file = 'server.key'",
      // A throwaway cluster: no waiting for the disk.
      'fsync = off',
      'full_page_writes = off',
      'wal_level = replica',
      'max_wal_senders = 4',
      'hot_standby = on',
    ];
    writeOwned(
      path.join(primary.dataDirectory, 'postgresql.conf'),
      `${readFileSync(path.join(primary.dataDirectory, 'postgresql.conf'), 'utf8')}\n${settings.join('\n')}\n`,
    );
    await startServer(primary);
    stops.push(() => stopServer(primary));

    // The replica: a base backup of the primary that follows it (-R writes primary_conninfo).
    const replica: PostgresServer = { port: -1, dataDirectory: path.join(root, 'replica'), pid: -1 };
    await asPostgres(
      path.join(POSTGRES_BIN, 'pg_basebackup'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        USER,
        '-D',
        replica.dataDirectory,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
      ],
      { PGPASSWORD: password },
    );
    replica.port = await freePort();
    writeOwned(
      path.join(replica.dataDirectory, 'postgresql.conf'),
      `${readFileSync(path.join(replica.dataDirectory, 'postgresql.conf'), 'utf8')}\nport = ${replica.port}\n`,
    );
    await startServer(replica);
    stops.push(() => stopServer(replica));

    // PgBouncer in transaction mode in front of the primary, every database.
    const poolerPort = await freePort();
    const bouncer = path.join(root, 'pgbouncer');
    mkdirSync(bouncer, { mode: 0o755 });
    own(bouncer);
    writeOwned(path.join(bouncer, 'userlist.txt'), `"${USER}" "${password}"\n`);
    writeOwned(
      path.join(bouncer, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=127.0.0.1 port=${primary.port}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${poolerPort}`,
        'unix_socket_dir =',
        'auth_type = scram-sha-256',
        `auth_file = ${path.join(bouncer, 'userlist.txt')}`,
        'pool_mode = transaction',
        'max_client_conn = 1000',
        'default_pool_size = 20',
        `admin_users = ${USER}`,
        `logfile = ${path.join(bouncer, 'pgbouncer.log')}`,
        `pidfile = ${path.join(bouncer, 'pgbouncer.pid')}`,
        '',
      ].join('\n'),
    );
    await asPostgres(PGBOUNCER, ['-d', path.join(bouncer, 'pgbouncer.ini')]);
    const poolerPid = await waitUntil('PgBouncer pid file', () => {
      const file = path.join(bouncer, 'pgbouncer.pid');
      return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) || undefined : undefined;
    });
    guards.set('pooler', guardChildProcess(poolerPid, 'SIGTERM'));
    // SIGTERM: PgBouncer's immediate shutdown.
    stops.push(async () => {
      await stopProcess(poolerPid, 'SIGTERM', 10_000);
      guards.get('pooler')?.();
    });

    const sql = async <T>(port: number, database: string, text: string): Promise<T[]> => {
      const client = new Client({ connectionString: url(port, database) });
      await client.connect();
      try {
        return (await client.query(text)).rows as T[];
      } finally {
        await client.end();
      }
    };
    await waitUntil('the replica to accept connections', () =>
      sql(replica.port, 'postgres', 'SELECT 1').then(
        () => true,
        () => false,
      ),
    );

    return {
      primary,
      replica,
      pooler: { port: poolerPort, pid: poolerPid },
      caFile,
      password,
      url,
      createDatabase: async (prefix = 'laurel_production') => {
        const name = `${prefix}_${Math.random().toString(16).slice(2, 10)}`;
        await sql(primary.port, 'postgres', `CREATE DATABASE "${name}"`);
        // The database exists on the replica once it has replayed its creation.
        await waitUntil(`${name} on the replica`, () =>
          sql(replica.port, name, 'SELECT 1').then(
            () => true,
            () => false,
          ),
        );
        return {
          name,
          directUrl: url(primary.port, name),
          poolerUrl: url(poolerPort, name),
          replicaUrl: url(replica.port, name),
          drop: () =>
            sql(primary.port, 'postgres', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(
              () => undefined,
            ),
        };
      },
      pauseReplay: () => sql(replica.port, 'postgres', 'SELECT pg_wal_replay_pause()').then(() => undefined),
      resumeReplay: () =>
        sql(replica.port, 'postgres', 'SELECT pg_wal_replay_resume()').then(() => undefined),
      stopReplica: () => stopServer(replica),
      startReplica: async () => {
        await startServer(replica);
        await waitUntil('the replica to accept connections', () =>
          sql(replica.port, 'postgres', 'SELECT 1').then(
            () => true,
            () => false,
          ),
        );
      },
      poolerStats: async (database) => {
        const rows = await sql<Record<string, string>>(poolerPort, 'pgbouncer', 'SHOW STATS');
        return rows.find((row) => row.database === database) ?? {};
      },
      stop: () => stopAll(),
    };
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }

  async function stopAll(): Promise<void> {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
    rmSync(root, { recursive: true, force: true });
  }
}
