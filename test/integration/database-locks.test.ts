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
import { client, type Client as ApiClient } from '../helpers/flow';
import { startTestLaurel, type HttpResult, type TestLaurel } from '../helpers/laurel';

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

/** Clients of two new accounts: one whose requests the test holds up, one whose requests it does not. */
async function heldUpAndServedClients(): Promise<[ApiClient, ApiClient]> {
  const [heldUp, served] = [Wallet.createRandom(), Wallet.createRandom()];
  return [
    client(laurel.url, await issueApiKey(laurel.url, heldUp)),
    client(laurel.url, await issueApiKey(laurel.url, served)),
  ];
}

/**
 * Sends twice as many requests held up in the database (`heldUp`) as the pool has connections and,
 * behind them, requests that are not: those answer 200 meanwhile, and each held-up one 503.
 */
async function expectOnlyHeldUpRequestsFail(heldUp: () => Promise<HttpResult>, served: ApiClient) {
  const held = Array.from({ length: 2 * POOL_SIZE }, heldUp);
  const others = await Promise.all(Array.from({ length: 5 }, () => served.get('/keys')));
  for (const answer of others) expect(answer.status).toBe(200);
  for (const answer of await Promise.all(held)) {
    expect(answer).toMatchObject({
      status: 503,
      body: { status: 'failed', error: 'Database unavailable' },
    });
  }
}

it('answers 503 for what waits on a lock held elsewhere, and serves everything else meanwhile', async () => {
  const [waitingApi, servedApi] = await heldUpAndServedClients();
  expect((await waitingApi.get('/webhook/secret')).status).toBe(200);

  // A migration run by hand, its transaction not committed yet: it holds webhook_secrets.
  const operator = new Client({ connectionString: laurel.databaseUrl });
  await operator.connect();
  await operator.query('BEGIN');
  await operator.query('ALTER TABLE webhook_secrets ADD COLUMN operator_note TEXT');
  try {
    await expectOnlyHeldUpRequestsFail(() => waitingApi.get('/webhook/secret'), servedApi);
  } finally {
    await operator.query('ROLLBACK');
    await operator.end();
  }
  expect((await waitingApi.get('/webhook/secret')).status).toBe(200);
}, 60_000);

it('answers 503 for a statement that runs too long, and serves everything else meanwhile', async () => {
  const [waitingApi, servedApi] = await heldUpAndServedClients();
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
    await expectOnlyHeldUpRequestsFail(() => waitingApi.post('/webhook/secret', {}), servedApi);
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
