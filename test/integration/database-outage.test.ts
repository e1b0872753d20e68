import { Writable } from 'node:stream';
import { Wallet } from 'ethers';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { migrate } from '../../src/db/migrator';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/embedded/postgres';
import { startLaurel, type Laurel } from '../../src/server/laurel';
import { issueApiKey } from '../helpers/auth';
import { graphql, request } from '../helpers/laurel';
import { makeDataDir } from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

/**
 * A database given by DATABASE_URL (not Laurel's to restart) goes away and comes back: while it is
 * gone every request answers 503 `Database unavailable` (REST and GraphQL), /ready names the
 * database without internal detail, the log says so once per interval; once it is back, Laurel
 * reconnects by itself.
 */
let dataDir: string;
let database: EmbeddedPostgresHandle;
let laurel: Laurel;
const logLines: { kind?: string; msg?: string }[] = [];

const startDatabase = () =>
  startEmbeddedPostgres({ dataDir, database: 'laurel', persistent: false, supervise: false });

beforeAll(async () => {
  dataDir = makeDataDir();
  database = await startDatabase();
  await migrate(database.databaseUrl);
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: database.databaseUrl,
    LOCAL_CHAIN: 'off',
    LOG_LEVEL: 'warn',
  });
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  laurel = await startLaurel(config, { log: pino({ level: 'warn' }, capture) });
}, 120_000);

afterAll(async () => {
  await laurel?.stop();
  await database?.stop();
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
  const outageLines = logLines.filter((line) => line.kind === 'database_unavailable');
  expect(outageLines.length).toBeGreaterThanOrEqual(1);
  expect(outageLines.length).toBeLessThanOrEqual(3);
  expect(logLines.filter((line) => line.msg === 'unhandled error')).toEqual([]);

  // The database comes back (same data, same port): Laurel reconnects without a restart.
  database = await startDatabase();
  await waitUntil('the database to answer again', async () =>
    (await request(laurel.url, 'GET', '/v1/keys', { apiKey })).status === 200 ? true : undefined,
  );
  expect((await fetch(`${laurel.url}/ready`)).status).toBe(200);
  expect((await graphql(laurel.url, '{ apiKeys { id } }', { apiKey })).body.data).toEqual({
    apiKeys: [expect.objectContaining({ id: expect.any(String) })],
  });
}, 120_000);
