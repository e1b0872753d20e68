import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transaction, Wallet } from 'ethers';
import { TransactionsRepository } from '../../src/modules/transactions/transactions.repository';
import { issueApiKey } from '../helpers/auth';
import { chainConfigOf, startTestChain, type TestChain } from '../helpers/chain';
import { client, type Unsigned } from '../helpers/flow';
import { runDueJobs } from '../helpers/jobs';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * A JSON-RPC hop in front of anvil that behaves like a flaky link for eth_sendRawTransaction: `late`
 * forwards it but answers after Laurel's RPC deadline (the node has the transaction, Laurel does
 * not know), `lost` never forwards it and answers nothing; or for eth_getTransactionCount:
 * `no-nonce` answers it with HTTP 503.
 */
type HopMode = 'pass' | 'late' | 'lost' | 'no-nonce';
function flakyRpcHop(target: string): {
  url: Promise<string>;
  mode: HopMode;
  close(): void;
} {
  const hop = {
    mode: 'pass' as HopMode,
    url: Promise.resolve(''),
    close: () => {
      server.closeAllConnections(); // including a `lost` request nobody answered
      server.close();
    },
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const sends = body.includes('eth_sendRawTransaction');
      if (sends && hop.mode === 'lost') return; // the socket is closed by Laurel's deadline
      if (hop.mode === 'no-nonce' && body.includes('eth_getTransactionCount')) {
        res.writeHead(503).end();
        return;
      }
      const answer = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await answer.text();
      if (sends && hop.mode === 'late') await new Promise((resolve) => setTimeout(resolve, 1500));
      if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  hop.url = new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
  return hop;
}

let chain: TestChain;
let hop: ReturnType<typeof flakyRpcHop>;
let laurel: TestLaurel;

beforeAll(async () => {
  chain = await startTestChain();
  hop = flakyRpcHop(chain.rpcUrl);
  const chains = [chainConfigOf(chain, { rpcUrl: await hop.url })];
  laurel = await startTestLaurel({
    worker: false,
    env: { CHAINS: JSON.stringify(chains), RPC_TIMEOUT_MS: '1000', TRANSACTION_DROP_AFTER_SECONDS: '1' },
  });
}, 120_000);

afterAll(async () => {
  await laurel?.stop();
  hop?.close();
  await chain?.stop();
});

const rowOf = (hash: string) => laurel.services.prisma.transaction.findFirst({ where: { hash } });

async function buildApp(apiKey: string, name: string): Promise<Unsigned> {
  const built = await client(laurel.url, apiKey).post('/app/new', { chain: 'local', name });
  expect(built.status).toBe(200);
  return built.body.unsignedTransaction as Unsigned;
}

/** POST /v1/transactions/execute with the hop in `mode` for this request only. */
async function executeThrough(mode: HopMode, apiKey: string, signed: string) {
  hop.mode = mode;
  try {
    return await request(laurel.url, 'POST', '/v1/transactions/execute', {
      apiKey,
      body: { chain: 'local', signed_transaction: signed },
    });
  } finally {
    hop.mode = 'pass';
  }
}

async function executeAndWait(apiKey: string, signed: string) {
  return request(laurel.url, 'POST', '/v1/transactions/execute-and-wait', {
    apiKey,
    body: { chain: 'local', signed_transaction: signed },
  });
}

it('answers a nonce far ahead, which any wallet may sign, with the first 100 missing nonces, not a 500', async () => {
  const stranger = Wallet.createRandom();
  const apiKey = await issueApiKey(laurel.url, stranger);
  const signed = await stranger.signTransaction({
    to: stranger.address,
    nonce: Number.MAX_SAFE_INTEGER - 1,
    gasLimit: 21_000,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId: 31337n,
    type: 2,
  });
  expect(await executeAndWait(apiKey, signed)).toMatchObject({
    status: 409,
    body: {
      status: 'failed',
      reason: 'nonce_gap',
      next_nonce: 0,
      missing_nonces: Array.from({ length: 100 }, (_, i) => i),
      transactionHash: Transaction.from(signed).hash,
    },
  });
});

it('answers a nonce gap at once naming the missing nonce; the next build fills it and both go through', async () => {
  const wallet = chain.wallets[5];
  const apiKey = await issueApiKey(laurel.url, wallet);
  const next = await chain.provider.getTransactionCount(wallet.address, 'pending');

  const declined = await buildApp(apiKey, 'Never signed'); // the user declines it in the wallet
  const behind = await buildApp(apiKey, 'Behind the gap');
  expect([declined.nonce, behind.nonce]).toEqual([next, next + 1]);
  const behindSigned = await wallet.signTransaction(behind);

  const started = Date.now();
  const refused = await executeAndWait(apiKey, behindSigned);
  expect(Date.now() - started).toBeLessThan(8000);
  expect(refused).toMatchObject({
    status: 409,
    body: {
      status: 'failed',
      reason: 'nonce_gap',
      next_nonce: next,
      missing_nonces: [next],
      transactionHash: Transaction.from(behindSigned).hash,
    },
  });
  expect(refused.body.error).toContain(`nonce ${next} is missing`);
  expect(await rowOf(Transaction.from(behindSigned).hash!)).toBeNull();

  const filler = await buildApp(apiKey, 'Fills the gap');
  expect(filler.nonce).toBe(next);
  expect(await executeAndWait(apiKey, await wallet.signTransaction(filler))).toMatchObject({
    status: 200,
    body: { status: 'success' },
  });
  expect(await executeAndWait(apiKey, behindSigned)).toMatchObject({
    status: 200,
    body: { status: 'success' },
  });
}, 60_000);

it('keeps an ambiguous broadcast (answer lost after the node took it) and follows it to its receipt', async () => {
  const wallet = chain.wallets[6];
  const apiKey = await issueApiKey(laurel.url, wallet);
  const signed = await wallet.signTransaction(await buildApp(apiKey, 'Answer lost'));
  const hash = Transaction.from(signed).hash!;

  const sent = await executeThrough('late', apiKey, signed);
  expect(sent).toMatchObject({
    status: 503,
    body: { status: 'failed', chain: 'local', transactionHash: hash },
  });
  expect(sent.body.error).toMatch(/may have reached the node/);
  expect(await rowOf(hash)).toMatchObject({ status: 'pending' });

  await runDueJobs(laurel);
  expect(await rowOf(hash)).toMatchObject({ status: 'success', receipt: expect.objectContaining({ hash }) });
}, 60_000);

it('sends again an ambiguous broadcast the node never got once no request can still be sending it: it is mined, and the wallet goes on', async () => {
  const wallet = chain.wallets[7];
  const apiKey = await issueApiKey(laurel.url, wallet);
  const unsigned = await buildApp(apiKey, 'Lost on the way');
  const signed = await wallet.signTransaction(unsigned);
  const hash = Transaction.from(signed).hash!;

  const sent = await executeThrough('lost', apiKey, signed);
  expect(sent).toMatchObject({ status: 503, body: { transactionHash: hash } });
  expect(await rowOf(hash)).toMatchObject({ status: 'pending' });
  expect(await chain.provider.getTransaction(hash)).toBeNull();

  // RPC_TIMEOUT_MS is 1 s here: recorded more than 2 s ago, no request can still be sending it,
  // and the receipt job sends it again (then a new receipt job follows it).
  const { createdAt } = (await rowOf(hash))!;
  await waitUntil('the record to be 2 s old', () => Date.now() - createdAt.getTime() > 2000);
  await runDueJobs(laurel);
  expect(await rowOf(hash)).toMatchObject({ status: 'success', rebroadcasts: 1 });
  const next = await buildApp(apiKey, 'After the lost one');
  expect(next.nonce).toBe((unsigned.nonce as number) + 1);
  expect(await executeAndWait(apiKey, await wallet.signTransaction(next))).toMatchObject({
    status: 200,
    body: { status: 'success' },
  });
}, 60_000);

it('marks a recorded transaction behind a nonce that nobody sends dropped after the bounded time, saying why', async () => {
  const wallet = chain.wallets[9];
  const apiKey = await issueApiKey(laurel.url, wallet);
  const next = await chain.provider.getTransactionCount(wallet.address, 'pending');
  // Recorded as the sender records it, with the nonce before it never sent by anyone.
  const signed = await wallet.signTransaction(
    await wallet.populateTransaction({ to: wallet.address, value: 1n, nonce: next + 1 }),
  );
  const transaction = Transaction.from(signed);
  const repository = new TransactionsRepository(laurel.services.prisma, laurel.services.pool);
  await repository.record(laurel.services.chains.get('local'), transaction, {
    requestId: 'test',
    followedUntil: null,
    signedTransaction: signed,
  });

  // TRANSACTION_DROP_AFTER_SECONDS is 1 here, and the record is no longer on its way after 2 s.
  const { createdAt } = (await rowOf(transaction.hash!))!;
  await waitUntil('the record to be 2 s old', () => Date.now() - createdAt.getTime() > 2000);
  await runDueJobs(laurel);
  // Not sent to wait behind the hole: dropped, with why.
  expect(await chain.provider.getTransaction(transaction.hash!)).toBeNull();
  expect(await rowOf(transaction.hash!)).toMatchObject({
    status: 'dropped',
    rebroadcasts: 0,
    droppedReason:
      'unknown to the node for 1 s (TRANSACTION_DROP_AFTER_SECONDS), and not sent again: a nonce before it is missing, and is not Laurel’s to send',
  });
  const status = await request(laurel.url, 'GET', `/v1/transactions/${transaction.hash!}`, { apiKey });
  expect(status.body).toMatchObject({
    status: 'dropped',
    error: expect.stringMatching(/^Dropped: unknown to the node/),
  });
}, 60_000);

it("records nothing when the sender's nonce cannot be read as the transaction is sent (read beside the record)", async () => {
  const wallet = chain.wallets[8];
  const apiKey = await issueApiKey(laurel.url, wallet);
  const signed = await wallet.signTransaction(await buildApp(apiKey, 'Nonce unreadable'));
  const hash = Transaction.from(signed).hash!;

  const sent = await executeThrough('no-nonce', apiKey, signed);
  expect(sent).toMatchObject({ status: 503, body: { status: 'failed', chain: 'local' } });
  // Neither the row nor the receipt job the record enqueued with it (execute) is left.
  expect(await rowOf(hash)).toBeNull();
  const { rows } = await laurel.services.pool.query(
    "SELECT 1 FROM graphile_worker.jobs WHERE key LIKE '%' || $1",
    [hash],
  );
  expect(rows).toEqual([]);
  expect(await chain.provider.getTransaction(hash)).toBeNull();

  expect(await executeAndWait(apiKey, signed)).toMatchObject({ status: 200, body: { status: 'success' } });
}, 60_000);
