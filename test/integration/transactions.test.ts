import { Transaction, Wallet, type Signer, type TransactionRequest } from 'ethers';
import { Pool } from 'pg';
import { appFactoryInterface } from '../../src/chain/contracts';
import { LOCAL_EXPLORER_URL } from '../../src/chain/registry';
import { TransactionsRepository } from '../../src/modules/transactions/transactions.repository';
import { issueApiKey } from '../helpers/auth';
import { client, type Client } from '../helpers/flow';
import { runDueJobs } from '../helpers/jobs';
import { graphql, startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * POST /transactions/execute and /transactions/execute-and-wait on anvil, with real signed
 * transactions, through REST and GraphQL. execute-and-wait waits at most 1 s here
 * (EXECUTE_WAIT_TIMEOUT_SECONDS) so that its timeout can be seen with mining stopped.
 */
let laurel: TestLaurel;
let apiKey: string;
let api: Client;
let sender: Signer;
let senderAddress: string;

const explorer = (hash: string) => `${LOCAL_EXPLORER_URL}/tx/${hash}`;

async function signed(overrides: TransactionRequest = {}, signer: Signer = sender): Promise<string> {
  const populated = await signer.populateTransaction({ to: senderAddress, value: 1n, ...overrides });
  return signer.signTransaction(populated);
}

/**
 * A transaction signed for `chainId` with fixed nonce, gas and fees, as populateTransaction would
 * refuse to fill it (another chain id, a sender without funds).
 */
async function signedForChain(chainId: bigint, signer: Signer = sender): Promise<string> {
  return signer.signTransaction({
    to: senderAddress,
    value: 1n,
    nonce: 0,
    gasLimit: 21_000,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId,
    type: 2,
  });
}

async function rowsOf(hash: string) {
  return laurel.services.prisma.transaction.findMany({ where: { hash } });
}

async function trackingJobsOf(hash: string): Promise<number> {
  const rows = await laurel.services.prisma.$queryRaw<{ count: bigint }[]>`
    SELECT count(*) AS count FROM graphile_worker.jobs WHERE key LIKE ${`%${hash}`}`;
  return Number(rows[0].count);
}

async function eventually<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true, env: { EXECUTE_WAIT_TIMEOUT_SECONDS: '1' } });
  sender = laurel.chain!.wallets[3];
  senderAddress = await sender.getAddress();
  apiKey = await issueApiKey(laurel.url, laurel.chain!.wallets[3]);
  api = client(laurel.url, apiKey);
});
afterAll(async () => {
  await laurel?.stop();
});

describe('POST /transactions/execute', () => {
  it('broadcasts, answers at once, records the transaction and follows its receipt in a job', async () => {
    const raw = await signed();
    const { hash, nonce, to } = Transaction.from(raw);
    const result = await api.post('/transactions/execute', { chain: 'local', signed_transaction: raw });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      status: 'success',
      transactionHash: hash,
      blockExplorerUrl: explorer(hash!),
    });

    const rows = await rowsOf(hash!);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      accountAddress: senderAddress,
      chainId: 31337,
      chainName: 'local',
      fromAddress: senderAddress,
      toAddress: to,
      nonce: BigInt(nonce),
    });

    const [tracked] = await eventually(
      () => rowsOf(hash!),
      ([row]) => row.status !== 'pending',
    );
    expect(tracked.status).toBe('success');
    const receipt = await laurel.chain!.provider.getTransactionReceipt(hash!);
    expect(tracked.blockNumber).toBe(BigInt(receipt!.blockNumber));
    expect(tracked.receipt).toEqual(JSON.parse(JSON.stringify(receipt!.toJSON())));
  });

  it('infers the chain from the signed transaction when `chain` is absent', async () => {
    const raw = await signed();
    const hash = Transaction.from(raw).hash!;
    const result = await api.post('/transactions/execute', { signed_transaction: raw });
    expect(result).toMatchObject({
      status: 200,
      body: { status: 'success', transactionHash: hash, blockExplorerUrl: explorer(hash) },
    });
    expect(await rowsOf(hash)).toHaveLength(1);
  });

  it('answers a rebroadcast with the same hash and keeps one row', async () => {
    const raw = await signed();
    const hash = Transaction.from(raw).hash!;
    const body = { chain: 'local', signed_transaction: raw };
    const first = await api.post('/transactions/execute', body);
    const again = await api.post('/transactions/execute', body);
    expect(first.body).toEqual({
      status: 'success',
      transactionHash: hash,
      blockExplorerUrl: explorer(hash),
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await rowsOf(hash)).toHaveLength(1);
  });

  it('records contract creations (no `to`) and calls by one statement, in any order on a connection', async () => {
    // One connection, so that each statement finds the other's prepared there.
    const pool = new Pool({ connectionString: laurel.databaseUrl, max: 1 });
    try {
      const repository = new TransactionsRepository(laurel.services.prisma, pool);
      const chain = laurel.services.chains.get('local');
      const wallet = Wallet.createRandom();
      const record = async (to: string | null, nonce: number) => {
        const raw = await wallet.signTransaction({
          to,
          data: '0x6000',
          nonce,
          gasLimit: 100_000,
          maxFeePerGas: 10_000_000_000n,
          maxPriorityFeePerGas: 1n,
          chainId: 31337n,
          type: 2,
        });
        const sent = { requestId: 'test', followedUntil: new Date(), signedTransaction: raw };
        return repository.record(chain, Transaction.from(raw), sent);
      };
      const recorded = { recorded: true, refusedFor: null };
      expect(await record(senderAddress, 0)).toEqual(recorded);
      expect(await record(null, 1)).toEqual(recorded);
      expect(await record(senderAddress, 2)).toEqual(recorded);
    } finally {
      await pool.end();
    }
  });

  it('answers a nonce that is too low with 409 and the node message, not a 500', async () => {
    const raw = await signed({ nonce: 0 });
    const hash = Transaction.from(raw).hash!;
    const result = await api.post('/transactions/execute', { chain: 'local', signed_transaction: raw });
    expect(result.status).toBe(409);
    // Whose nonces: the signer's.
    expect(result.body).toEqual({
      status: 'failed',
      error: `nonce too low (nonce 0 of ${senderAddress}, the transaction's signer)`,
      reason: 'nonce_too_low',
      transactionHash: hash,
      sender: senderAddress,
    });
    // Recorded before the broadcast, un-recorded when the node refused it.
    expect(await rowsOf(hash)).toHaveLength(0);
    expect(await trackingJobsOf(hash)).toBe(0);
  });

  it('answers a sender without funds with 422', async () => {
    const poor = Wallet.createRandom().connect(laurel.chain!.provider);
    const raw = await signedForChain(31337n, poor);
    const result = await api.post('/transactions/execute', { chain: 'local', signed_transaction: raw });
    expect(result.status).toBe(422);
    expect(result.body).toEqual({
      status: 'failed',
      error: 'Insufficient funds for gas * price + value',
      reason: 'insufficient_funds',
      transactionHash: Transaction.from(raw).hash,
      sender: poor.address,
    });
  });

  describe('validation (Shape C)', () => {
    const execute = (body: unknown) => api.post('/transactions/execute', body);

    it('rejects a missing signed_transaction', async () => {
      expect(await execute({ chain: 'local' })).toMatchObject({
        status: 400,
        body: {
          error: {
            issues: [
              {
                code: 'invalid_type',
                expected: 'string',
                received: 'undefined',
                path: ['signed_transaction'],
                message: 'Required',
              },
            ],
          },
        },
      });
    });

    it('rejects a signed_transaction that is not hex', async () => {
      const result = await execute({ chain: 'local', signed_transaction: 'hello' });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({
        error: {
          issues: [
            {
              validation: 'regex',
              code: 'invalid_string',
              message: 'Invalid signed transaction: expected 0x-prefixed hex bytes',
              path: ['signed_transaction'],
            },
          ],
        },
      });
    });

    it('rejects hex that is not a transaction', async () => {
      const result = await execute({ chain: 'local', signed_transaction: '0xdeadbeef' });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({
        error: {
          issues: [
            {
              code: 'custom',
              message: 'Invalid signed transaction: data short segment too short',
              path: ['signed_transaction'],
            },
          ],
        },
      });
    });

    it('rejects an unsigned transaction', async () => {
      const unsigned = Transaction.from({
        to: senderAddress,
        value: 1n,
        chainId: 31337,
        nonce: 0,
        gasLimit: 21_000,
      });
      const result = await execute({ chain: 'local', signed_transaction: unsigned.unsignedSerialized });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({
        error: {
          issues: [
            { code: 'custom', message: 'The transaction is not signed', path: ['signed_transaction'] },
          ],
        },
      });
    });

    it('rejects a `chain` that does not match the transaction', async () => {
      const raw = await signedForChain(1n);
      const result = await execute({ chain: 'local', signed_transaction: raw });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({
        error: {
          issues: [
            {
              code: 'custom',
              path: ['chain'],
              message: 'Chain "local" has chain id 31337, but the transaction is signed for chain id 1',
            },
          ],
        },
      });
    });

    it('rejects a transaction for a chain id this service does not serve', async () => {
      const raw = await signedForChain(1n);
      const result = await execute({ signed_transaction: raw });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({
        error: {
          issues: [
            {
              code: 'custom',
              path: ['signed_transaction'],
              message:
                'The transaction is signed for chain id 1, which this service does not serve (it serves: local (31337))',
            },
          ],
        },
      });
    });

    it('rejects an unknown chain name', async () => {
      const result = await execute({ chain: 'nope', signed_transaction: await signed() });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({
        error: {
          issues: [
            { code: 'custom', path: ['chain'], message: 'Unknown chain "nope"; this service serves: local' },
          ],
        },
      });
    });
  });
});

describe('POST /transactions/execute-and-wait', () => {
  const executeAndWait = (raw: string) =>
    api.post('/transactions/execute-and-wait', { chain: 'local', signed_transaction: raw });

  it('answers with the receipt, field by field', async () => {
    const raw = await signed();
    const hash = Transaction.from(raw).hash!;
    const result = await executeAndWait(raw);
    expect(result.status).toBe(200);
    const receipt = (await laurel.chain!.provider.getTransactionReceipt(hash))!;
    expect(result.body).toEqual({
      status: 'success',
      transactionHash: hash,
      blockExplorerUrl: explorer(hash),
      receipt: {
        _type: 'TransactionReceipt',
        blockHash: receipt.blockHash,
        blockNumber: receipt.blockNumber,
        contractAddress: null,
        cumulativeGasUsed: receipt.cumulativeGasUsed.toString(),
        from: senderAddress,
        gasPrice: receipt.gasPrice.toString(),
        blobGasUsed: null,
        blobGasPrice: receipt.blobGasPrice?.toString() ?? null,
        gasUsed: '21000',
        hash,
        index: receipt.index,
        logs: [],
        logsBloom: receipt.logsBloom,
        status: 1,
        to: senderAddress,
      },
      // A Laurel addition: what it created (a plain transfer creates nothing).
      created: { apps: [], badges: [], credit_tokens: [] },
    });
    expect(await rowsOf(hash)).toEqual([
      expect.objectContaining({
        status: 'success',
        blockNumber: BigInt(receipt.blockNumber),
        receipt: result.body.receipt,
      }),
    ]);
  });

  it('sends a contract creation (no `to`) as any transaction: its receipt names the new contract', async () => {
    const raw = await signed({ to: null, value: 0n, data: '0x6000' });
    const hash = Transaction.from(raw).hash!;
    const result = await executeAndWait(raw);
    expect(result.status).toBe(200);
    const receipt = (await laurel.chain!.provider.getTransactionReceipt(hash))!;
    expect(receipt.contractAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(result.body).toMatchObject({
      status: 'success',
      transactionHash: hash,
      receipt: { contractAddress: receipt.contractAddress, to: null, status: 1 },
    });
    // A call after it is recorded and sent as before.
    expect((await executeAndWait(await signed())).body).toMatchObject({ status: 'success' });
  });

  it('answers two requests sending the same transaction at once alike, its events indexed once', async () => {
    const raw = await signed({
      to: laurel.chain!.factory,
      value: 0n,
      data: appFactoryInterface.encodeFunctionData('createApp', ['Sent twice']),
      gasLimit: 3_000_000,
    });
    const [first, second] = await Promise.all([executeAndWait(raw), executeAndWait(raw)]);
    expect(first).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(second.body).toEqual(first.body);
    const app = (first.body.created as { apps: string[] }).apps[0]!;
    const indexed = await laurel.services.pool.query(
      'SELECT count(*)::int AS n FROM indexed_apps WHERE address = $1',
      [app],
    );
    expect(indexed.rows[0].n).toBe(1);
  });

  it('answers a reverted transaction with status failed and its receipt', async () => {
    const raw = await signed({
      to: laurel.chain!.factory,
      value: 0n,
      data: appFactoryInterface.encodeFunctionData('createApp', ['']),
      gasLimit: 300_000,
    });
    const hash = Transaction.from(raw).hash!;
    const result = await executeAndWait(raw);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      status: 'failed',
      transactionHash: hash,
      blockExplorerUrl: explorer(hash),
      receipt: expect.objectContaining({
        _type: 'TransactionReceipt',
        hash,
        status: 0,
        to: laurel.chain!.factory,
      }),
      // The decoded revert next to the receipt: AppFactory refuses an empty name.
      error: 'Transaction reverted: EmptyName()',
    });
    expect(await rowsOf(hash)).toEqual([expect.objectContaining({ status: 'failed' })]);
  });

  it('answers 200 Timeout (as the original service) when the transaction is not mined in time; the job records it once mined', async () => {
    const provider = laurel.chain!.provider;
    await provider.send('evm_setAutomine', [false]);
    let hash: string;
    try {
      const raw = await signed();
      hash = Transaction.from(raw).hash!;
      const started = Date.now();
      const result = await executeAndWait(raw);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(result.status).toBe(200);
      expect(result.body).toEqual({
        status: 'failed',
        error: 'Timeout',
        transactionHash: hash,
        blockExplorerUrl: explorer(hash),
      });
      expect(await rowsOf(hash)).toEqual([expect.objectContaining({ status: 'pending', receipt: null })]);
      // What became of it: pending, until mined.
      expect((await api.get(`/transactions/${hash}`)).body).toMatchObject({
        status: 'pending',
        transactionHash: hash,
        confirmations: 0,
        blockNumber: null,
      });
    } finally {
      await provider.send('evm_setAutomine', [true]);
      await provider.send('evm_mine', []);
    }
    const [row] = await eventually(
      () => rowsOf(hash),
      ([candidate]) => candidate.status !== 'pending',
    );
    expect(row.status).toBe('success');
    const status = await api.get(`/transactions/${hash!}`);
    expect(status.body).toMatchObject({ status: 'success', blockNumber: Number(row.blockNumber) });
    expect(status.body.confirmations).toBeGreaterThanOrEqual(1);
  });

  it('answers validation failures in Shape C', async () => {
    const result = await executeAndWait('0x');
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      error: {
        issues: [
          {
            validation: 'regex',
            code: 'invalid_string',
            message: 'Invalid signed transaction: expected 0x-prefixed hex bytes',
            path: ['signed_transaction'],
          },
        ],
      },
    });
  });
});

describe('GraphQL', () => {
  const mutation = `mutation Execute($chain: String, $signed: String!) {
    executeTransactionAndWait(chain: $chain, signed_transaction: $signed) {
      status transactionHash blockExplorerUrl error
      receipt { _type hash status blockNumber from to gasUsed logs { address topics data } }
    }
  }`;

  it('executeTransactionAndWait answers the same result as REST', async () => {
    const raw = await signed();
    const hash = Transaction.from(raw).hash!;
    const result = await graphql<{ executeTransactionAndWait: Record<string, unknown> }>(
      laurel.url,
      mutation,
      {
        apiKey,
        variables: { signed: raw },
      },
    );
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data!.executeTransactionAndWait).toEqual({
      status: 'success',
      transactionHash: hash,
      blockExplorerUrl: explorer(hash),
      receipt: expect.objectContaining({ _type: 'TransactionReceipt', hash, status: 1 }),
      error: null,
    });
  });

  it('executeTransaction broadcasts', async () => {
    const raw = await signed();
    const hash = Transaction.from(raw).hash!;
    const result = await graphql<{ executeTransaction: Record<string, unknown> }>(
      laurel.url,
      `
        mutation ($signed: String!) {
          executeTransaction(chain: "local", signed_transaction: $signed) {
            status
            transactionHash
            blockExplorerUrl
            receipt {
              hash
            }
            error
          }
        }
      `,
      { apiKey, variables: { signed: raw } },
    );
    expect(result.body.data!.executeTransaction).toEqual({
      status: 'success',
      transactionHash: hash,
      blockExplorerUrl: explorer(hash),
      receipt: null,
      error: null,
    });
  });

  it('reports validation errors as BAD_USER_INPUT and rejections with their code', async () => {
    const invalid = await graphql(laurel.url, mutation, { apiKey, variables: { signed: '0xdeadbeef' } });
    expect(invalid.body.errors![0]).toMatchObject({
      message: 'signed_transaction: Invalid signed transaction: data short segment too short',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const rejected = await graphql(laurel.url, mutation, {
      apiKey,
      variables: { signed: await signed({ nonce: 0 }) },
    });
    expect(rejected.body.errors![0]).toMatchObject({
      message: `nonce too low (nonce 0 of ${senderAddress}, the transaction's signer)`,
      extensions: { code: 'NONCE_TOO_LOW', http_status: 409 },
    });
  });

  it('needs an API key', async () => {
    const result = await graphql(laurel.url, mutation, { variables: { signed: await signed() } });
    expect(result.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('receipt job and chain outages', () => {
  let own: TestLaurel;
  let ownKey: string;

  beforeAll(async () => {
    own = await startTestLaurel({ chain: true, worker: false });
    ownKey = await issueApiKey(own.url, own.chain!.wallets[4]);
  });
  afterAll(async () => {
    await own?.stop();
  });

  it('marks a transaction the node never saw dropped on the last attempt of its receipt job', async () => {
    const wallet = own.chain!.wallets[4];
    const raw = await signedForChain(31337n, wallet);
    const transaction = Transaction.from(raw);
    const chain = own.services.chains.get('local');
    const repository = new TransactionsRepository(own.services.prisma, own.services.pool);
    const sent = { requestId: 'test', followedUntil: null, signedTransaction: raw };
    expect(await repository.record(chain, transaction, sent)).toEqual({ recorded: true, refusedFor: null });
    // The job as record() enqueued it, made due and down to its last attempt.
    await own.services.prisma.$executeRaw`
      UPDATE graphile_worker._private_jobs SET max_attempts = 1 WHERE key LIKE ${`%${transaction.hash}`}`;

    await runDueJobs(own);

    const rows = await own.services.prisma.transaction.findMany({ where: { hash: transaction.hash! } });
    expect(rows.map((row) => row.status)).toEqual(['dropped']);
  });

  it('answers 503 naming the chain when the node is down while broadcasting, never a 500', async () => {
    const raw = await signedForChain(31337n, own.chain!.wallets[4]);
    await own.chain!.stop();
    const result = await client(own.url, ownKey).post('/transactions/execute', {
      chain: 'local',
      signed_transaction: raw,
    });
    expect(result.status).toBe(503);
    expect(result.body).toEqual({
      status: 'failed',
      error: 'Chain "local" is unavailable: its node refused the connection',
      chain: 'local',
    });
    // Never the node's address: an RPC URL often carries a provider's API key.
    expect(JSON.stringify(result.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|:\d{4,5}/);
    const gql = await graphql(
      own.url,
      `
        mutation ($signed: String!) {
          executeTransaction(signed_transaction: $signed) {
            status
          }
        }
      `,
      { apiKey: ownKey, variables: { signed: raw } },
    );
    expect(gql.body.errors?.[0].extensions).toMatchObject({ code: 'CHAIN_UNAVAILABLE', http_status: 503 });
  });
});
