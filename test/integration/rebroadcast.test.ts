import { Transaction, type Wallet } from 'ethers';
import { Client } from 'pg';
import { loadConfig } from '../../src/config';
import { RetryLaterError } from '../../src/jobs/jobs';
import { createLogger } from '../../src/logger';
import { TransactionsRepository } from '../../src/modules/transactions/transactions.repository';
import { startLaurel, type Laurel } from '../../src/server/laurel';
import { issueApiKey } from '../helpers/auth';
import { chainConfigOf, receiptOf, startTestChain, type TestChain } from '../helpers/chain';
import { restrictDatabase, createTestDatabase } from '../helpers/database';
import { client, type Unsigned } from '../helpers/flow';
import { request } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * Laurel sends again what it recorded and the chain lost: a transaction recorded whose process
 * stopped before sending it is sent at the next start; a missing nonce that Laurel sent and the
 * chain dropped is named as such in the nonce-gap answer. Each Laurel here runs over the same
 * database, as a restarted process does. RPC_TIMEOUT_MS is 1 s, so a transaction recorded more than
 * 2 s ago is no longer on its way (../../src/modules/transactions/sending/rebroadcaster.ts).
 */
let chain: TestChain;
let database: { url: string; drop(): Promise<void> };
const running: Laurel[] = [];

async function start(options: { worker: boolean; rpcTimeoutMs?: number }): Promise<Laurel> {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: database.url,
    LOCAL_CHAIN: 'off',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RPC_TIMEOUT_MS: String(options.rpcTimeoutMs ?? 1000),
    CHAINS: JSON.stringify([chainConfigOf(chain)]),
  });
  const laurel = await startLaurel(config, { log: createLogger(config.logLevel), worker: options.worker });
  running.push(laurel);
  return laurel;
}

async function stop(laurel: Laurel): Promise<void> {
  running.splice(running.indexOf(laurel), 1);
  await laurel.stop();
}

beforeAll(async () => {
  chain = await startTestChain();
  database = await createTestDatabase();
}, 120_000);

afterAll(async () => {
  for (const laurel of running) await laurel.stop();
  await chain?.stop();
  await database?.drop();
});

const rowOf = (laurel: Laurel, hash: string) =>
  laurel.services.prisma.transaction.findFirstOrThrow({ where: { hash } });

/** The transaction's receipt jobs waiting in the queue. */
async function receiptJobsOf(laurel: Laurel, hash: string): Promise<{ id: string; run_at: Date }[]> {
  const { rows } = await laurel.services.pool.query<{ id: string; run_at: Date }>(
    `SELECT id, run_at FROM graphile_worker.jobs
      WHERE task_identifier = 'transactions__track_receipt' AND key LIKE '%' || $1`,
    [hash],
  );
  return rows;
}

/** The answer to a send whose record Laurel keeps, the database gone (RECORD_KEPT). */
const recordKept = (hash: string) => ({
  status: 503,
  body: {
    status: 'failed',
    error: expect.stringMatching(/^Database unavailable; the transaction stays recorded/),
    chain: 'local',
    transactionHash: hash,
  },
});

async function buildApp(laurel: Laurel, apiKey: string, name: string): Promise<Unsigned> {
  const built = await client(laurel.url, apiKey).post('/app/new', { chain: 'local', name });
  expect(built.status).toBe(200);
  return built.body.unsignedTransaction as Unsigned;
}

function executeAndWait(laurel: Laurel, apiKey: string, signed: string) {
  return request<{ status: string; error: string; rebroadcasting: unknown }>(
    laurel.url,
    'POST',
    '/v1/transactions/execute-and-wait',
    { apiKey, body: { chain: 'local', signed_transaction: signed } },
  );
}

/** Records a signed transaction as the sender does before it broadcasts, and sends nothing. */
async function recordOnly(laurel: Laurel, signed: string): Promise<string> {
  const transaction = Transaction.from(signed);
  const repository = new TransactionsRepository(laurel.services.prisma, laurel.services.pool);
  const recorded = await repository.record(laurel.services.chains.get('local'), transaction, {
    requestId: 'stopped-before-the-send',
    followedUntil: null,
    signedTransaction: signed,
  });
  expect(recorded).toEqual({ recorded: true, refusedFor: null });
  return transaction.hash!;
}

it('sends at the next start a transaction recorded but not broadcast when the process stopped; the wallet is not stuck', async () => {
  const wallet: Wallet = chain.wallets[3];
  const first = await start({ worker: false });
  const apiKey = await issueApiKey(first.url, wallet);
  const unsigned = await buildApp(first, apiKey, 'Recorded, never sent');
  const hash = await recordOnly(first, await wallet.signTransaction(unsigned));
  const { createdAt } = await rowOf(first, hash);
  await stop(first);
  expect(await chain.provider.getTransaction(hash)).toBeNull();
  // Recorded more than twice the RPC deadline ago: no request can still be sending it.
  await waitUntil('the record to be 2 s old', () => Date.now() - createdAt.getTime() > 2000);

  const second = await start({ worker: true });
  const mined = await receiptOf(chain.provider, hash, 'the transaction sent at start and mined');
  expect(mined.status).toBe(1);
  await waitUntil('its receipt recorded', async () => (await rowOf(second, hash)).status === 'success');
  const status = await request(second.url, 'GET', `/v1/transactions/${hash}`, { apiKey });
  expect(status.body).toMatchObject({ status: 'success', nonce: unsigned.nonce, rebroadcasts: 1 });

  // The wallet's next transaction is not refused for the nonce the stop left behind.
  const next = await buildApp(second, apiKey, 'After the restart');
  expect(next.nonce).toBe((unsigned.nonce as number) + 1);
  const sent = await executeAndWait(second, apiKey, await wallet.signTransaction(next));
  expect(sent).toMatchObject({ status: 200, body: { status: 'success' } });
  await stop(second);
}, 120_000);

it('answers a nonce gap on a nonce Laurel sent and the chain dropped with what Laurel does about it, then sends it again', async () => {
  const wallet: Wallet = chain.wallets[4];
  // No worker: the check of receipts after the reorganisation runs when the test says.
  const laurel = await start({ worker: false });
  const apiKey = await issueApiKey(laurel.url, wallet);
  const unsigned = await buildApp(laurel, apiKey, 'Mined, then reorganised away');
  const nonce = unsigned.nonce as number;
  const sent = await executeAndWait(laurel, apiKey, await wallet.signTransaction(unsigned));
  expect(sent.body.status).toBe('success');
  const hash = Transaction.from(await wallet.signTransaction(unsigned)).hash!;
  await chain.provider.send('anvil_reorg', [1, []]);
  expect(await chain.provider.getTransaction(hash)).toBeNull();

  const behind = await wallet.signTransaction(await buildApp(laurel, apiKey, 'Behind the dropped one'));
  expect(Transaction.from(behind).nonce).toBe(nonce + 1);
  const refused = await executeAndWait(laurel, apiKey, behind);
  expect(refused).toMatchObject({
    status: 409,
    body: {
      status: 'failed',
      reason: 'nonce_gap',
      sender: wallet.address,
      next_nonce: nonce,
      missing_nonces: [nonce],
      rebroadcasting: [{ nonce, transactionHash: hash }],
      transactionHash: Transaction.from(behind).hash,
    },
  });
  expect(refused.body.error).toBe(
    `Nonce ${nonce + 1} of ${wallet.address} (the transaction's signer) cannot be mined yet: its nonce ${nonce} is missing. ` +
      `Laurel sent nonce ${nonce} (${hash}) and the chain dropped it (a reorganisation, or the node's pool): ` +
      'Laurel is sending it again (GET /v1/transactions/{hash} follows it). Send this transaction again once it is mined.',
  );
  expect(refused.body.error).not.toMatch(/never signed or sent/);

  // The check of receipts finds the replaced block, and Laurel sends the transaction again.
  await laurel.tasks.receiptChecks.checkReceipts(chain.chainId);
  const again = await receiptOf(chain.provider, hash, 'the transaction mined again');
  expect(again.status).toBe(1);
  expect(await executeAndWait(laurel, apiKey, behind)).toMatchObject({
    status: 200,
    body: { status: 'success' },
  });
  await stop(laurel);
}, 120_000);

it('counts a transaction Laurel sent again whose receipt was recorded before the count', async () => {
  const wallet: Wallet = chain.wallets[5];
  const laurel = await start({ worker: false });
  const apiKey = await issueApiKey(laurel.url, wallet);
  const signed = await wallet.signTransaction(await buildApp(laurel, apiKey, 'Mined before its count'));
  expect(await executeAndWait(laurel, apiKey, signed)).toMatchObject({
    status: 200,
    body: { status: 'success' },
  });
  const hash = Transaction.from(signed).hash!;
  const jobsBefore = await receiptJobsOf(laurel, hash);

  // The node mined what Laurel sent again, and its receipt was recorded, before the count ran (seen
  // in a reorganisation under load): counted all the same, and no receipt job follows it.
  const repository = new TransactionsRepository(laurel.services.prisma, laurel.services.pool);
  expect(await repository.markRebroadcast(chain.chainId, hash)).toBe(false);
  const row = await rowOf(laurel, hash);
  expect(row).toMatchObject({ status: 'success', rebroadcasts: 1 });
  expect(row.rebroadcastAt).toBeInstanceOf(Date);
  expect(await receiptJobsOf(laurel, hash)).toEqual(jobsBefore);
  const status = await waitUntil('the status read counting it', async () => {
    const read = await request(laurel.url, 'GET', `/v1/transactions/${hash}`, { apiKey });
    return read.body.rebroadcasts === 1 && read;
  });
  expect(status.body).toMatchObject({
    status: 'success',
    rebroadcasts: 1,
    rebroadcast_at: expect.any(String),
  });
  await stop(laurel);
}, 120_000);

it('sends again, in the same look, the later transactions a lost one held up', async () => {
  const wallet: Wallet = chain.wallets[5];
  // No worker: the receipt job's attempt runs when the test says.
  const laurel = await start({ worker: false });
  const apiKey = await issueApiKey(laurel.url, wallet);
  const first = await buildApp(laurel, apiKey, 'Lost first');
  const hashes = [await recordOnly(laurel, await wallet.signTransaction(first))];
  const second = await buildApp(laurel, apiKey, 'Lost behind it');
  expect(second.nonce).toBe((first.nonce as number) + 1);
  hashes.push(await recordOnly(laurel, await wallet.signTransaction(second)));
  const { createdAt } = await rowOf(laurel, hashes[1]!);
  await waitUntil('the records to be 2 s old', () => Date.now() - createdAt.getTime() > 2000);

  // One attempt of the first one's receipt job: it finds it unknown to the node and sends it again,
  // and the second with it, which would otherwise wait for its own job's next look.
  await laurel.tasks.receipts.trackReceipt(
    { chainId: chain.chainId, hash: hashes[0]! },
    { attempts: 1, maxAttempts: 20 },
  );
  for (const hash of hashes) {
    expect((await receiptOf(chain.provider, hash, 'sent again and mined')).status).toBe(1);
  }
  expect((await rowOf(laurel, hashes[1]!)).rebroadcasts).toBe(1);
  await stop(laurel);
}, 120_000);

it('looks again at a lost transaction when its time on its way ends, if the backoff would wait longer', async () => {
  const wallet: Wallet = chain.wallets[6];
  // RPC_TIMEOUT_MS 5 s: a transaction is on its way for 10 s after its record, longer than an
  // attempt's wait for the receipt (2 s). No worker: each attempt runs when the test says.
  const laurel = await start({ worker: false, rpcTimeoutMs: 5000 });
  const apiKey = await issueApiKey(laurel.url, wallet);
  const hash = await recordOnly(
    laurel,
    await wallet.signTransaction(await buildApp(laurel, apiKey, 'Lost on its way')),
  );
  const { createdAt } = await rowOf(laurel, hash);
  const windowEnds = new Date(createdAt.getTime() + 10_000);
  const job = { chainId: chain.chainId, hash };

  // A first attempt: graphile-worker's retry (e^1 s later) comes before the window ends.
  await expect(laurel.tasks.receipts.trackReceipt(job, { attempts: 1, maxAttempts: 20 })).rejects.toThrow(
    RetryLaterError,
  );
  // A third: its retry (e^3 s, 20 s later) would come after; the job is due when the window ends
  // instead, and the node still does not have the transaction.
  await laurel.tasks.receipts.trackReceipt(job, { attempts: 3, maxAttempts: 20 });
  expect(await receiptJobsOf(laurel, hash)).toEqual([{ id: expect.any(String), run_at: windowEnds }]);
  expect(await chain.provider.getTransaction(hash)).toBeNull();

  // That look (the new job's first attempt) sends it again.
  await waitUntil('the window to end', () => Date.now() > windowEnds.getTime());
  await laurel.tasks.receipts.trackReceipt(job, { attempts: 1, maxAttempts: 20 });
  expect((await receiptOf(chain.provider, hash, 'sent again and mined')).status).toBe(1);
  expect((await rowOf(laurel, hash)).rebroadcasts).toBe(1);
  await stop(laurel);
}, 120_000);

it('makes the receipt jobs of the later transactions the node held behind a lost one look at once, when it is sent again', async () => {
  const wallet: Wallet = chain.wallets[7];
  const laurel = await start({ worker: false });
  const apiKey = await issueApiKey(laurel.url, wallet);
  const repository = new TransactionsRepository(laurel.services.prisma, laurel.services.pool);
  const lost = await recordOnly(laurel, await wallet.signTransaction(await buildApp(laurel, apiKey, 'Lost')));
  const signed = await wallet.signTransaction(await buildApp(laurel, apiKey, 'Held up by the node'));
  const heldUp = await recordOnly(laurel, signed);
  // The node took the second, and holds it behind the missing nonce; its receipt job's next retry
  // is far off, as after attempts made while it waited.
  await chain.provider.broadcastTransaction(signed);
  expect(await chain.provider.getTransaction(heldUp)).not.toBeNull();
  await repository.trackReceiptAt({ chainId: chain.chainId, hash: heldUp }, new Date(Date.now() + 3_600_000));
  const { createdAt } = await rowOf(laurel, heldUp);
  await waitUntil('the records to be 2 s old', () => Date.now() - createdAt.getTime() > 2000);

  // One attempt of the lost one's receipt job sends it again: the node mines both, and the second's
  // receipt job is due now.
  const lookedAt = new Date();
  await laurel.tasks.receipts.trackReceipt(
    { chainId: chain.chainId, hash: lost },
    { attempts: 1, maxAttempts: 20 },
  );
  for (const hash of [lost, heldUp]) {
    expect((await receiptOf(chain.provider, hash, 'mined')).status).toBe(1);
  }
  const rows = await receiptJobsOf(laurel, heldUp);
  expect(rows).toHaveLength(1);
  expect(rows[0]!.run_at.getTime()).toBeLessThanOrEqual(Date.now());
  expect(rows[0]!.run_at.getTime()).toBeGreaterThanOrEqual(lookedAt.getTime() - 1000);
  expect((await rowOf(laurel, heldUp)).rebroadcasts).toBe(0);
  await stop(laurel);
}, 120_000);

it('sends a lost transaction again once, and counts it once, when two looks at it overlap', async () => {
  const wallet: Wallet = chain.wallets[8];
  const laurel = await start({ worker: false });
  const apiKey = await issueApiKey(laurel.url, wallet);
  const hash = await recordOnly(
    laurel,
    await wallet.signTransaction(await buildApp(laurel, apiKey, 'Looked at twice')),
  );
  const { createdAt } = await rowOf(laurel, hash);
  await waitUntil('the record to be 2 s old', () => Date.now() - createdAt.getTime() > 2000);

  // As when its receipt job and the look that sends an earlier nonce of its wallet run together.
  const look = () =>
    laurel.tasks.receipts.trackReceipt({ chainId: chain.chainId, hash }, { attempts: 1, maxAttempts: 20 });
  const looks = await Promise.allSettled([look(), look()]);
  // A look whose send began after the other's ended finds the node has it ('known'), and hands
  // its job back for a later look: how far the two overlap is the scheduler's to decide.
  expect(looks.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
  for (const outcome of looks) {
    if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(RetryLaterError);
  }
  expect((await receiptOf(chain.provider, hash, 'sent again and mined')).status).toBe(1);
  expect((await rowOf(laurel, hash)).rebroadcasts).toBe(1);
  await stop(laurel);
}, 120_000);

it('answers a send it could not un-record (the database went away) with the hash it keeps following', async () => {
  const wallet: Wallet = chain.wallets[9];
  const laurel = await start({ worker: false });
  const apiKey = await issueApiKey(laurel.url, wallet);
  // A nonce built and never sent: the next one waits behind its gap, recorded, until the grace ends.
  await buildApp(laurel, apiKey, 'Never signed');
  const behind = await wallet.signTransaction(await buildApp(laurel, apiKey, 'Behind the gap'));
  const hash = Transaction.from(behind).hash!;
  const listener = new Client({ connectionString: database.url });
  listener.on('error', () => undefined); // cut with the others below
  await listener.connect();
  await listener.query('LISTEN laurel_transaction_statuses');
  const recorded = new Promise<void>((resolve) =>
    listener.on('notification', ({ payload }) => {
      if (payload?.endsWith(hash.toLowerCase())) resolve();
    }),
  );
  const answer = request(laurel.url, 'POST', '/v1/transactions/execute', {
    apiKey,
    body: { chain: 'local', signed_transaction: behind },
  });
  // Recorded, and waiting out the gap: the database takes no connection, and Laurel's are cut.
  // The refusal cannot un-record it, so the answer must not say that nothing was done.
  await recorded;
  const reopen = await restrictDatabase(database.url, 'closed');
  try {
    expect(await answer).toMatchObject(recordKept(hash));
  } finally {
    await reopen();
    await listener.end().catch(() => undefined);
  }
  // Once the database is back, its record and its receipt job are there.
  const row = await waitUntil('the database back', () => rowOf(laurel, hash).catch(() => undefined));
  expect(row).toMatchObject({ status: 'pending' });
  expect(await receiptJobsOf(laurel, hash)).toHaveLength(1);
  await stop(laurel);
}, 120_000);

it('answers an execute-and-wait whose receipt it could not record (the database went away) with the hash it keeps following', async () => {
  const wallet: Wallet = chain.wallets[1];
  const laurel = await start({ worker: false });
  const apiKey = await issueApiKey(laurel.url, wallet);
  const signed = await wallet.signTransaction(
    await buildApp(laurel, apiKey, 'Mined while the database is away'),
  );
  const hash = Transaction.from(signed).hash!;
  // Sent, and waiting in the node's pool for a block.
  await chain.provider.send('evm_setAutomine', [false]);
  try {
    const answer = executeAndWait(laurel, apiKey, signed);
    await waitUntil('the node to have it', () => chain.provider.getTransaction(hash));
    const reopen = await restrictDatabase(database.url, 'closed');
    try {
      // Mined while the database takes no connection: its receipt cannot be recorded.
      await chain.provider.send('evm_mine', []);
      expect(await answer).toMatchObject(recordKept(hash));
    } finally {
      await reopen();
    }
  } finally {
    await chain.provider.send('evm_setAutomine', [true]);
  }
  // As the answer says: Laurel follows it once the database is back. Here a process with a worker
  // starts, as after the outage: it gives pending transactions to their receipt jobs at once.
  expect((await receiptOf(chain.provider, hash, 'the transaction mined')).status).toBe(1);
  const follower = await start({ worker: true });
  await waitUntil(
    'its receipt recorded',
    async () => (await rowOf(follower, hash).catch(() => null))?.status === 'success',
  );
  await stop(follower);
  await stop(laurel);
}, 120_000);

it('brings a receipt job forward only when it waits: one a worker runs is left to it', async () => {
  const wallet: Wallet = chain.wallets[2];
  const laurel = await start({ worker: false });
  const apiKey = await issueApiKey(laurel.url, wallet);
  const repository = new TransactionsRepository(laurel.services.prisma, laurel.services.pool);
  const hash = await recordOnly(laurel, await wallet.signTransaction(await buildApp(laurel, apiKey, 'Job')));
  const job = { chainId: chain.chainId, hash };
  await repository.trackReceiptAt(job, new Date(Date.now() + 3_600_000));
  const [waiting] = await receiptJobsOf(laurel, hash);

  const now = new Date();
  await repository.trackReceiptAt(job, now, true);
  expect(await receiptJobsOf(laurel, hash)).toEqual([{ id: waiting!.id, run_at: now }]);

  // A worker runs it: enqueueing under its key would retire it (no retry left) for a new job.
  await laurel.services.pool.query(
    `UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'test' WHERE id = $1`,
    [waiting!.id],
  );
  await repository.trackReceiptAt(job, new Date(), true);
  // The job it ran and any job under its key: still the one, its key and attempts untouched.
  const { rows } = await laurel.services.pool.query<{ id: string; key: string | null; attempts: number }>(
    `SELECT id, key, attempts FROM graphile_worker.jobs WHERE id = $1 OR key LIKE '%' || $2`,
    [waiting!.id, hash],
  );
  expect(rows).toEqual([{ id: waiting!.id, key: expect.stringContaining(hash), attempts: 0 }]);
  await stop(laurel);
}, 120_000);
