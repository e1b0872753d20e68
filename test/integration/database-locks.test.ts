/**
 * Statements held up in the database. A lock held by another session (an operator's transaction
 * left open, or a migration's ALTER TABLE waiting on its commit): statements of Laurel's pool wait
 * for it at most DATABASE_LOCK_TIMEOUT_MS (PostgreSQL's lock_timeout). A statement the server is
 * slow to finish: it runs at most DATABASE_STATEMENT_TIMEOUT_MS (statement_timeout). Then their
 * requests answer 503 `Database unavailable` and give their connection back: those requests fail,
 * and every other request is still served. Without the bounds, ten such requests hold the whole
 * pool, and every other request answers 503 once its wait for a connection ends.
 */
import { Wallet } from 'ethers';
import { Client } from 'pg';
import { issueApiKey } from '../helpers/auth';
import { client } from '../helpers/flow';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

const POOL_SIZE = 10;
let laurel: TestLaurel;

beforeAll(async () => {
  laurel = await startTestLaurel({
    env: {
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      DATABASE_LOCK_TIMEOUT_MS: '500',
      DATABASE_STATEMENT_TIMEOUT_MS: '1000',
    },
  });
}, 120_000);

afterAll(async () => {
  await laurel?.stop();
});

it('answers 503 for what waits on a lock held elsewhere, and serves everything else meanwhile', async () => {
  const [waiting, served] = [Wallet.createRandom(), Wallet.createRandom()];
  const waitingApi = client(laurel.url, await issueApiKey(laurel.url, waiting));
  const servedApi = client(laurel.url, await issueApiKey(laurel.url, served));
  expect((await waitingApi.get('/webhook/secret')).status).toBe(200);

  // A migration run by hand, its transaction not committed yet: it holds webhook_secrets.
  const operator = new Client({ connectionString: laurel.databaseUrl });
  await operator.connect();
  await operator.query('BEGIN');
  await operator.query('ALTER TABLE webhook_secrets ADD COLUMN operator_note TEXT');
  try {
    // Twice as many requests that need the lock as the pool has connections…
    const blocked = Array.from({ length: 2 * POOL_SIZE }, () => waitingApi.get('/webhook/secret'));
    // …and, behind them, requests that do not need it.
    const others = await Promise.all(Array.from({ length: 5 }, () => servedApi.get('/keys')));
    for (const answer of others) expect(answer.status).toBe(200);
    for (const answer of await Promise.all(blocked)) {
      expect(answer).toMatchObject({
        status: 503,
        body: { status: 'failed', error: 'Database unavailable' },
      });
    }
  } finally {
    await operator.query('ROLLBACK');
    await operator.end();
  }
  expect((await waitingApi.get('/webhook/secret')).status).toBe(200);
}, 60_000);

it('answers 503 for a statement that runs too long, and serves everything else meanwhile', async () => {
  const [waiting, served] = [Wallet.createRandom(), Wallet.createRandom()];
  const waitingApi = client(laurel.url, await issueApiKey(laurel.url, waiting));
  const servedApi = client(laurel.url, await issueApiKey(laurel.url, served));
  expect((await waitingApi.post('/webhook/secret', {})).status).toBe(200);

  // The server takes ten minutes over every write of a webhook secret.
  const operator = new Client({ connectionString: laurel.databaseUrl });
  await operator.connect();
  await operator.query(`
    CREATE FUNCTION slow_secret_writes() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN PERFORM pg_sleep(600); RETURN NEW; END $$;
    CREATE TRIGGER slow_secret_writes BEFORE INSERT OR UPDATE ON webhook_secrets
      FOR EACH ROW EXECUTE FUNCTION slow_secret_writes();`);
  try {
    const slow = Array.from({ length: 2 * POOL_SIZE }, () => waitingApi.post('/webhook/secret', {}));
    const others = await Promise.all(Array.from({ length: 5 }, () => servedApi.get('/keys')));
    for (const answer of others) expect(answer.status).toBe(200);
    for (const answer of await Promise.all(slow)) {
      expect(answer).toMatchObject({
        status: 503,
        body: { status: 'failed', error: 'Database unavailable' },
      });
    }
    // Every slow statement was cancelled: none still holds a connection.
    const { rows } = await operator.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'`,
    );
    expect(rows).toEqual([{ n: 0 }]);
  } finally {
    await operator.query(`
      DROP TRIGGER slow_secret_writes ON webhook_secrets;
      DROP FUNCTION slow_secret_writes();`);
    await operator.end();
  }
  expect((await waitingApi.post('/webhook/secret', {})).status).toBe(200);
}, 60_000);
