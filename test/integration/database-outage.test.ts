import { rmSync } from 'node:fs';
import { Wallet } from 'ethers';
import { Client } from 'pg';
import { migrate, readMigrations } from '../../src/db/migrator';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/embedded/postgres';
import { issueApiKey } from '../helpers/auth';
import { graphql, request } from '../helpers/laurel';
import {
  makeDataDir,
  spawnLaurel,
  startLaurelProcess,
  stopLaurelProcess,
  type StartedLaurel,
  statusOf,
} from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

/**
 * A database given by DATABASE_URL (not Laurel's to restart) goes away and comes back: while it is
 * gone every request answers 503 `Database unavailable` (REST and GraphQL), /ready names the
 * database without internal detail, the log says so once per interval; once it is back, Laurel
 * reconnects by itself. The built service runs as `npm start` runs it (its job worker too: a job
 * it was finishing as the database went must not end the process).
 */
let dataDir: string;
/** Laurel's own data folder (its database is the one in `dataDir`). */
let laurelDir: string;
let database: EmbeddedPostgresHandle;
let laurel: StartedLaurel;

const startDatabase = () =>
  startEmbeddedPostgres({ dataDir, database: 'laurel', persistent: false, supervise: false });
const logLines = () =>
  laurel
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { kind?: string; msg?: string; reason?: string });

beforeAll(async () => {
  dataDir = makeDataDir();
  database = await startDatabase();
  await migrate(database.databaseUrl);
  laurelDir = makeDataDir();
  laurel = await startLaurelProcess(laurelDir, {
    DATABASE_URL: database.databaseUrl,
    LOCAL_CHAIN: 'off',
    LOG_FORMAT: 'json',
  });
}, 120_000);

afterAll(async () => {
  if (laurel) await stopLaurelProcess(laurel, 'SIGTERM');
  await database?.stop();
  for (const folder of [dataDir, laurelDir]) rmSync(folder, { recursive: true, force: true });
});

it('answers 503 while the database is gone, and recovers by itself once it is back', async () => {
  const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
  expect((await request(laurel.url, 'GET', '/v1/keys', { apiKey })).status).toBe(200);

  process.kill(database.pid, 'SIGKILL');
  await waitUntil('the first 503', async () =>
    (await request(laurel.url, 'GET', '/v1/keys', { apiKey })).status === 503 ? true : undefined,
  );

  const outage = await Promise.all(
    Array.from({ length: 40 }, () => request(laurel.url, 'GET', '/v1/keys', { apiKey })),
  );
  for (const response of outage) {
    expect(response).toMatchObject({
      status: 503,
      body: { status: 'failed', error: 'Database unavailable' },
    });
    // Nothing was done: a client may retry (packages/client does, after Retry-After).
    expect(response.headers.get('retry-after')).toBe('1');
  }
  // Unauthenticated REST that needs the database.
  expect(
    await request(laurel.url, 'POST', '/key/challenge', {
      body: { public_address: Wallet.createRandom().address },
    }),
  ).toMatchObject({ status: 503, body: { status: 'failed', error: 'Database unavailable' } });

  // GraphQL: with a key (the key lookup fails first) and in a resolver.
  const withKey = await graphql(laurel.url, '{ apiKeys { id } }', { apiKey });
  expect(withKey.status).toBe(503);
  expect(withKey.body.errors?.[0]).toMatchObject({
    message: 'Database unavailable',
    extensions: { code: 'SERVICE_UNAVAILABLE' },
  });
  const inResolver = await graphql(
    laurel.url,
    `mutation { requestApiKeyChallenge(public_address: "${Wallet.createRandom().address}") { challenge } }`,
  );
  expect(inResolver.body.errors?.[0]).toMatchObject({
    message: 'Database unavailable',
    extensions: { code: 'SERVICE_UNAVAILABLE' },
  });

  const ready = await fetch(`${laurel.url}/ready`);
  const readyText = await ready.text();
  expect(ready.status).toBe(503);
  expect(JSON.parse(readyText)).toEqual({
    status: 'not_ready',
    failing: ['database'],
    checks: { database: { ok: false }, chains: [], indexer: [] },
  });
  expect(readyText).not.toContain(String(database.port));

  // Over forty failed requests, the outage is logged once (once per interval), never as a 500.
  const outageLines = logLines().filter((line) => line.kind === 'database_unavailable');
  expect(outageLines.length).toBeGreaterThanOrEqual(1);
  expect(outageLines.length).toBeLessThanOrEqual(3);
  expect(logLines().filter((line) => line.msg === 'unhandled error')).toEqual([]);

  // The database comes back (same data, same port): Laurel reconnects without a restart.
  database = await startDatabase();
  await waitUntil('the database to answer again', async () =>
    (await request(laurel.url, 'GET', '/v1/keys', { apiKey })).status === 200 ? true : undefined,
  );
  // /ready checks at most once per READY_CHECK_INTERVAL_MS (1 s): it may say so up to that later.
  await waitUntil(
    '/ready to answer 200',
    async () => ((await statusOf(`${laurel.url}/ready`)) === 200 ? true : undefined),
    5_000,
  );
  expect((await graphql(laurel.url, '{ apiKeys { id } }', { apiKey })).body.data).toEqual({
    apiKeys: [expect.objectContaining({ id: expect.any(String) })],
  });
  expect(laurel.child.exitCode).toBeNull();
}, 120_000);

it('answers 503 while the database refuses its credentials (a password rotated first), and recovers once they match', async () => {
  const apiKey = await issueApiKey(laurel.url, Wallet.createRandom());
  const password = decodeURIComponent(new URL(database.databaseUrl).password);
  const admin = new Client({ connectionString: database.databaseUrl });
  await admin.connect();
  try {
    // The operator rotates the password before Laurel's DATABASE_URL; connections made since fail.
    await admin.query(`ALTER ROLE postgres PASSWORD 'rotated-${Date.now()}'`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const refused = await waitUntil('a request while the credentials are refused', async () => {
      const answer = await request(laurel.url, 'GET', '/v1/keys', { apiKey });
      return answer.status === 200 ? undefined : answer;
    });
    expect(refused).toMatchObject({ status: 503, body: { status: 'failed', error: 'Database unavailable' } });
    // The log says why, in PostgreSQL's words (once per interval: requests go on until it does).
    await waitUntil('the reason logged', async () => {
      await request(laurel.url, 'GET', '/v1/keys', { apiKey });
      return logLines().some(
        (line) =>
          line.kind === 'database_unavailable' &&
          /^28P01: password authentication failed/.test(line.reason ?? ''),
      );
    });
    expect(logLines().filter((line) => line.msg === 'unhandled error')).toEqual([]);
  } finally {
    await admin.query(`ALTER ROLE postgres PASSWORD '${password.replace(/'/g, "''")}'`);
    await admin.end();
  }
  await waitUntil('the database to take its credentials again', async () =>
    (await request(laurel.url, 'GET', '/v1/keys', { apiKey })).status === 200 ? true : undefined,
  );
  expect(laurel.child.exitCode).toBeNull();
}, 120_000);

it('stops at SIGTERM while a migration of its start waits for a lock, having written nothing', async () => {
  // A database one migration behind, and a transaction left open that keeps it from being recorded.
  const name = `laurel_pending_${Date.now()}`;
  const admin = new Client({ connectionString: database.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(database.databaseUrl);
  url.pathname = `/${name}`;
  const pendingUrl = url.toString();
  await migrate(pendingUrl);
  const last = (await readMigrations()).at(-1)!.name;
  const holder = new Client({ connectionString: pendingUrl, application_name: 'a long report' });
  await holder.connect();
  const folder = makeDataDir();
  try {
    await holder.query('DELETE FROM _prisma_migrations WHERE migration_name = $1', [last]);
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE _prisma_migrations IN SHARE MODE');
    const starting = spawnLaurel(folder, {
      DATABASE_URL: pendingUrl,
      LOCAL_CHAIN: 'off',
      LOG_FORMAT: 'json',
    });
    await waitUntil('a migration giving up on its lock', () =>
      starting.output().includes('migration waited 2 s for a lock another session holds'),
    );
    expect(starting.output()).toContain('"applicationName":"a long report"');
    starting.child.kill('SIGTERM');
    expect(await starting.exited).toBe(0);
    expect(starting.output()).toContain('laurel: stopped during the start');
    await holder.query('ROLLBACK');
    const recorded = await holder.query(
      'SELECT count(*)::int AS n FROM _prisma_migrations WHERE migration_name = $1',
      [last],
    );
    expect(recorded.rows).toEqual([{ n: 0 }]);
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
    rmSync(folder, { recursive: true, force: true });
  }
}, 120_000);
