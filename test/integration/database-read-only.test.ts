/**
 * A database that answers but refuses writes: a managed PostgreSQL turns read-only when its disk
 * fills, and DATABASE_URL can name a standby after a failover. Laurel answers what it cannot write
 * with 503 `Database unavailable` (REST and GraphQL), as during an outage, never a 500, and serves
 * reads (request budgets counted in memory meanwhile); a signed transaction it cannot record is not
 * sent; once the database takes writes again, the same requests succeed and the job worker runs
 * jobs again (a `transaction` event is delivered).
 */
import { Transaction, Wallet } from 'ethers';
import { databaseUnavailableReason } from '../../src/db/availability';
import { issueApiKey } from '../helpers/auth';
import { createTestDatabase, restrictDatabase } from '../helpers/database';
import { client, type Unsigned } from '../helpers/flow';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/** A wallet's request budget here (RATE_LIMIT_MAX_REQUESTS). */
const BUDGET = 40;
let laurel: TestLaurel;
let receiver: WebhookReceiver;

beforeAll(async () => {
  [laurel, receiver] = await Promise.all([
    startTestLaurel({ chain: true, worker: true, env: { RATE_LIMIT_MAX_REQUESTS: String(BUDGET) } }),
    startWebhookReceiver(),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([laurel?.stop(), receiver?.stop()]);
});

const UNAVAILABLE = { status: 503, body: { status: 'failed', error: 'Database unavailable' } };

it('answers 503 for what it cannot write while the database is read-only, and recovers once it takes writes', async () => {
  const wallet = laurel.chain!.wallets[1]!;
  const apiKey = await issueApiKey(laurel.url, wallet);
  const api = client(laurel.url, apiKey, wallet);
  receiver.route('/events', answerChallenge());
  const created = await api.post('/webhook', { url: receiver.url('/events'), events: ['transaction'] });
  const webhookId = (created.body.webhook as { id: number }).id;
  expect((await api.post(`/webhook/${webhookId}/test`, {})).status).toBe(200);
  const built = await api.post('/app/new', { chain: 'local', name: 'Read-only' });
  expect(built.status).toBe(200);
  const signed = await wallet.signTransaction(built.body.unsignedTransaction as Unsigned);
  const execute = { chain: 'local', signed_transaction: signed };
  const reader = client(laurel.url, await issueApiKey(laurel.url, Wallet.createRandom()));

  const undo = await restrictDatabase(laurel.databaseUrl, 'read-only');
  try {
    // Laurel's connections come back read-only: a write fails with PostgreSQL's own refusal.
    const refusal = await waitUntil('a write refused as read-only', () =>
      laurel.services.prisma
        .$executeRaw`INSERT INTO accounts (address) VALUES (${Wallet.createRandom().address})`.then(
        () => undefined,
        (error: unknown) => {
          const reason = databaseUnavailableReason(error);
          return reason?.startsWith('25006') ? reason : undefined;
        },
      ),
    );
    expect(refusal).toBe('25006: cannot execute INSERT in a read-only transaction');

    // Reads go on: what a read writes on the side (the key's last use, the wallet's request
    // count) gives way.
    for (const path of ['/profile?chain=local', '/leaderboard?chain=local', '/keys', '/apps?chain=local']) {
      expect(await api.get(path)).toMatchObject({ status: 200 });
    }
    // The budget still holds, counted in the process's memory meanwhile.
    const reads = await Promise.all(Array.from({ length: BUDGET + 5 }, () => reader.get('/keys')));
    expect(reads.map((answer) => answer.status).sort()).toEqual([
      ...Array<number>(BUDGET).fill(200),
      ...Array<number>(5).fill(429),
    ]);

    // Nothing recorded, so nothing sent: the node never got it.
    expect(
      await request(laurel.url, 'POST', '/v1/transactions/execute', { apiKey, body: execute }),
    ).toMatchObject(UNAVAILABLE);
    expect(await laurel.chain!.provider.getTransaction(Transaction.from(signed).hash!)).toBeNull();
    // A build reserves its nonce.
    expect(await api.post('/app/new', { chain: 'local', name: 'Refused' })).toMatchObject(UNAVAILABLE);
    expect(
      await request(laurel.url, 'POST', '/key/challenge', {
        body: { public_address: Wallet.createRandom().address },
      }),
    ).toMatchObject(UNAVAILABLE);
    // The interface's own answer for a webhook it could not store.
    expect(
      await api.post('/webhook', { url: receiver.url('/other'), events: ['transaction'] }),
    ).toMatchObject({
      status: 503,
      body: { status: 'failed', error: 'database operation failed' },
    });
    const mutation = await graphql(
      laurel.url,
      'mutation { createApp(chain: "local", name: "Refused") { unsignedTransaction { nonce } } }',
      {
        apiKey,
      },
    );
    expect(mutation.body.errors).toEqual([
      expect.objectContaining({
        message: 'Database unavailable',
        extensions: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }),
      }),
    ]);
  } finally {
    await undo();
  }

  // Writable again: the same signed transaction goes through, and its event is delivered.
  const sent = await waitUntil('the database taking writes again', async () => {
    const answer = await request(laurel.url, 'POST', '/v1/transactions/execute-and-wait', {
      apiKey,
      body: execute,
    });
    return answer.status === 503 ? undefined : answer;
  });
  expect(sent).toMatchObject({ status: 200, body: { status: 'success' } });
  const minedHash = (sent.body.receipt as { hash: string }).hash;
  await waitUntil('the transaction event delivered', () =>
    receiver.calls.some(
      (call) =>
        call.path === '/events' &&
        (JSON.parse(call.body) as { payload?: { hash?: string } }).payload?.hash === minedHash,
    ),
  );
}, 120_000);

it('starts on a database that refuses writes, answers 503 for what writes, and goes on once it takes writes', async () => {
  // A process (re)started during the refusal: a deploy, a crash, an autoscaler.
  const database = await createTestDatabase();
  const lift = await restrictDatabase(database.url, 'read-only');
  let lifted = false;
  const undo = async () => {
    if (!lifted) await lift();
    lifted = true;
  };
  let started: TestLaurel | undefined;
  try {
    started = await startTestLaurel({ chain: laurel.chain, database, worker: true });
    const challenge = () =>
      request(started!.url, 'POST', '/key/challenge', {
        body: { public_address: Wallet.createRandom().address },
      });
    expect(await challenge()).toMatchObject(UNAVAILABLE);
    await undo();
    const answer = await waitUntil('the database taking writes again', async () => {
      const next = await challenge();
      return next.status === 503 ? undefined : next;
    });
    expect(answer.status).toBe(200);
  } finally {
    await undo();
    await started?.stop();
  }
}, 120_000);
