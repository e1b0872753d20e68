import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Transaction, Wallet } from 'ethers';
import {
  executeSigned,
  FollowTimeoutError,
  followTransaction,
  Laurel,
  LaurelError,
  signIn,
} from '../../packages/client/src/index';
import { runCli } from '../../packages/client/src/cli/run';
import { startTestChain, type TestChain } from '../helpers/chain';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * The client's recovery (packages/client/README.md#recovery): against a real Laurel where one can be
 * made to answer so (a tiny request budget; a nonce gap; a nonce the chain dropped and Laurel sends
 * again), and against a small real HTTP server standing in for Laurel where it cannot (a 503 that
 * carries a hash, Retry-After as an HTTP date, an idempotency key in progress, bounds exceeded).
 */

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** What a server (or the client's fetch) saw of each request. */
interface Seen {
  method: string;
  path: string;
  status: number;
  idempotencyKey: string | null;
}

/** A Laurel client whose every attempt (retries included) is recorded in `seen`. */
function recordingClient(url: string, options: { apiKey?: string; retry?: false } = {}) {
  const seen: Seen[] = [];
  const laurel = new Laurel({
    url,
    apiKey: options.apiKey,
    retry: options.retry,
    fetch: async (request) => {
      const response = await globalThis.fetch(request);
      seen.push({
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        idempotencyKey: request.headers.get('idempotency-key'),
      });
      return response;
    },
  });
  return { laurel, seen };
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** A real HTTP server standing in for Laurel: `answer` gets each request and how many of its path came before. */
async function fakeLaurel(answer: (request: Seen, nth: number) => Answer) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const request: Seen = {
        method: req.method!,
        path: new URL(req.url!, 'http://x').pathname,
        status: 0,
        idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
      };
      const nth = seen.filter((s) => s.method === request.method && s.path === request.path).length;
      const { status, body, headers = {} } = answer(request, nth);
      seen.push({ ...request, status });
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    count: (method: string, path: string) =>
      seen.filter((s) => s.method === method && s.path === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const HASH = `0x${'ab'.repeat(32)}`;
const SIGNED = '0x02f8'; // never decoded by the stand-in
const EXPLORER = `http://explorer.local/tx/${HASH}`;
const RECEIPT = {
  _type: 'TransactionReceipt',
  blockHash: `0x${'cd'.repeat(32)}`,
  blockNumber: 12,
  contractAddress: null,
  cumulativeGasUsed: '21000',
  from: '0x1111111111111111111111111111111111111111',
  gasPrice: '1',
  gasUsed: '21000',
  hash: HASH,
  index: 0,
  logs: [],
  logsBloom: `0x${'00'.repeat(256)}`,
  status: 1,
  to: '0x2222222222222222222222222222222222222222',
};
const state = (status: string, extra: Record<string, unknown> = {}) => ({
  status,
  transactionHash: HASH,
  blockExplorerUrl: EXPLORER,
  chain: 'local',
  from: RECEIPT.from,
  nonce: 3,
  confirmations: status === 'pending' ? 0 : 1,
  blockNumber: status === 'pending' ? null : 12,
  sent_at: '2026-11-28T20:00:00.000Z',
  rebroadcasts: 0,
  rebroadcast_at: null,
  receipt: status === 'pending' ? null : RECEIPT,
  ...extra,
});
const AMBIGUOUS = {
  status: 503,
  body: {
    status: 'failed',
    error:
      'Chain "local" is unavailable: no answer within 10000 ms; the transaction may have reached the node: Laurel keeps following it (sending it again is safe)',
    chain: 'local',
    transactionHash: HASH,
  },
};
const notFound = { status: 404, body: { status: 'failed', error: 'Not found' } };

describe('against a stand-in for Laurel', () => {
  it('follows a 503 that carries a hash instead of sending again, and answers what execute-and-wait would have', async () => {
    const server = await fakeLaurel((request, nth) => {
      if (request.path === '/v1/transactions/execute-and-wait') return AMBIGUOUS;
      if (request.path === `/v1/transactions/${HASH}`)
        return { status: 200, body: state(nth < 2 ? 'pending' : 'success', { created: { app: null } }) };
      return notFound;
    });
    try {
      const laurel = new Laurel({ url: server.url, apiKey: 'laurel_test' });
      const answer = await executeSigned(
        laurel,
        { chain: 'local', signedTransaction: SIGNED },
        { wait: true },
      );
      expect(answer).toEqual({
        status: 'success',
        transactionHash: HASH,
        blockExplorerUrl: EXPLORER,
        receipt: RECEIPT,
        created: { app: null },
      });
      expect(server.count('POST', '/v1/transactions/execute-and-wait')).toBe(1); // never a second broadcast
      expect(server.count('GET', `/v1/transactions/${HASH}`)).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('follows the hash of a 503 on execute until mined, and says so when it was dropped', async () => {
    let dropped = false;
    const server = await fakeLaurel((request, nth) => {
      if (request.path === '/v1/transactions/execute') return AMBIGUOUS;
      if (dropped)
        return { status: 200, body: state('dropped', { error: 'Dropped: nonce too low', receipt: null }) };
      return { status: 200, body: state(nth === 0 ? 'pending' : 'success') };
    });
    try {
      const laurel = new Laurel({ url: server.url, apiKey: 'laurel_test' });
      const input = { chain: 'local', signedTransaction: SIGNED };
      expect(await executeSigned(laurel, input)).toEqual({
        status: 'success',
        transactionHash: HASH,
        blockExplorerUrl: EXPLORER,
      });
      dropped = true;
      const refused = (await executeSigned(laurel, input).catch((e: unknown) => e)) as LaurelError;
      expect(refused).toBeInstanceOf(LaurelError);
      expect(refused.message).toMatch(/it was dropped: Dropped: nonce too low\. Build and sign it again\.$/);
      expect(server.count('POST', '/v1/transactions/execute')).toBe(2); // once per call
    } finally {
      await server.close();
    }
  });

  it('gives up following at the deadline with an error that names the hash and says not to send it again', async () => {
    const server = await fakeLaurel(() => ({ status: 200, body: state('pending') }));
    try {
      const laurel = new Laurel({ url: server.url, apiKey: 'laurel_test' });
      const started = Date.now();
      const late = await followTransaction(laurel, HASH, { timeoutMs: 600 }).catch((e: unknown) => e);
      expect(late).toBeInstanceOf(FollowTimeoutError);
      expect((late as Error).message).toMatch(
        new RegExp(
          `^Transaction ${HASH} is still pending after 600 ms of following it: .*do not send it again`,
        ),
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      // Backoff: 250 ms, then 500 ms: two or three reads in 600 ms, not dozens.
      expect(server.seen.length).toBeGreaterThanOrEqual(2);
      expect(server.seen.length).toBeLessThanOrEqual(3);
    } finally {
      await server.close();
    }
  });

  it('retries a 503 "shutting down" after a Retry-After given as an HTTP date, under the same Idempotency-Key', async () => {
    const server = await fakeLaurel((_request, nth) =>
      nth === 0
        ? {
            status: 503,
            body: { status: 'failed', error: 'Laurel is shutting down' },
            headers: { 'retry-after': new Date(Date.now() + 2000).toUTCString() },
          }
        : { status: 200, body: { status: 'success', transactionHash: HASH, blockExplorerUrl: EXPLORER } },
    );
    try {
      const laurel = new Laurel({ url: server.url, apiKey: 'laurel_test' });
      const started = Date.now();
      const answer = await executeSigned(laurel, { chain: 'local', signedTransaction: SIGNED });
      expect(answer.transactionHash).toBe(HASH);
      expect(server.seen.map((s) => s.status)).toEqual([503, 200]);
      expect(server.seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(server.seen[1]!.idempotencyKey).toBe(server.seen[0]!.idempotencyKey);
      // The date has a resolution of a second: 2 s ahead is at least about 1 s of waiting (an unread header: none).
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await server.close();
    }
  });

  it('sends an Idempotency-Key to a Laurel served under a path prefix too (behind a reverse proxy)', async () => {
    const server = await fakeLaurel(() => ({
      status: 200,
      body: { status: 'success', transactionHash: HASH, blockExplorerUrl: EXPLORER },
    }));
    try {
      const laurel = new Laurel({ url: `${server.url}/laurel/`, apiKey: 'laurel_test' });
      await executeSigned(laurel, { chain: 'local', signedTransaction: SIGNED });
      expect(server.seen).toEqual([
        expect.objectContaining({
          method: 'POST',
          path: '/laurel/v1/transactions/execute',
          idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
        }),
      ]);
    } finally {
      await server.close();
    }
  });

  it('waits out 409 idempotency_key_in_progress and gets the first answer; does not retry a 503 without Retry-After or a 409 nonce gap', async () => {
    const server = await fakeLaurel((request, nth) => {
      if (request.path === '/v1/reward/XP')
        return nth === 0
          ? {
              status: 409,
              body: {
                success: false,
                error: {
                  code: 'idempotency_key_in_progress',
                  message: 'A request with this Idempotency-Key is still running: retry later',
                },
              },
              headers: { 'retry-after': '1' },
            }
          : { status: 200, body: { success: true, unsignedTransaction: { nonce: 1 } } };
      if (request.path === '/v1/transactions/execute')
        return {
          status: 409,
          body: {
            status: 'failed',
            error: 'gap',
            reason: 'nonce_gap',
            missing_nonces: [1],
            rebroadcasting: [],
          },
        };
      return { status: 503, body: { status: 'failed', error: 'Database unavailable' } };
    });
    try {
      const laurel = new Laurel({ url: server.url, apiKey: 'laurel_test' });
      const built = await laurel.call(
        laurel.api.POST('/v1/reward/XP', {
          body: { chain: 'local', app_id: RECEIPT.to, action_id: 'a', receiver: RECEIPT.from, amount: 1 },
        }),
      );
      expect(built).toMatchObject({ success: true });
      const xp = server.seen.filter((s) => s.path === '/v1/reward/XP');
      expect(xp.map((s) => s.status)).toEqual([409, 200]);
      expect(xp[1]!.idempotencyKey).toBe(xp[0]!.idempotencyKey);

      const gap = (await executeSigned(laurel, { chain: 'local', signedTransaction: SIGNED }).catch(
        (e: unknown) => e,
      )) as LaurelError;
      expect(gap.code).toBe('nonce_gap');
      expect(server.count('POST', '/v1/transactions/execute')).toBe(1);

      const down = (await laurel.call(laurel.api.GET('/v1/keys')).catch((e: unknown) => e)) as LaurelError;
      expect(down.status).toBe(503);
      expect(server.count('GET', '/v1/keys')).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('laurel follow prints each change and exits 1 when the transaction reverted', async () => {
    const server = await fakeLaurel((_request, nth) => ({
      status: 200,
      body:
        nth < 2
          ? state('pending', nth === 1 ? { rebroadcasts: 1 } : {})
          : state('failed', {
              error: 'Transaction reverted: NotOperator()',
              receipt: { ...RECEIPT, status: 0 },
            }),
    }));
    try {
      const lines: string[] = [];
      const io = {
        out: (line: string) => lines.push(line),
        err: (line: string) => lines.push(`err: ${line}`),
        env: { LAUREL_URL: server.url, LAUREL_API_KEY: 'laurel_test' },
        stopped: new Promise<void>(() => {}),
      };
      expect(await runCli(['follow', HASH], io)).toBe(1);
      expect(lines).toEqual([
        `${HASH} pending`,
        `${HASH} pending (sent again by Laurel 1 time)`,
        `${HASH} failed in block 12 (1 confirmation): Transaction reverted: NotOperator()`,
      ]);
      expect(await runCli(['follow', '0x12'], io)).toBe(1);
      expect(lines.at(-1)).toBe(
        'err: laurel follow: "0x12" is not a transaction hash (0x and 64 hex digits)',
      );
    } finally {
      await server.close();
    }
  });

  it('stops at its bounds with errors that say which bound and what to do', async () => {
    const server = await fakeLaurel((request) => ({
      status: 429,
      body: { status: 'failed', error: 'Too many requests', retry_after: 0 },
      headers: { 'retry-after': request.path === '/v1/keys' ? '120' : '0' },
    }));
    try {
      const laurel = new Laurel({
        url: server.url,
        apiKey: 'laurel_test',
        retry: { attempts: 3, maxWaitMs: 5_000 },
      });
      const long = (await laurel.call(laurel.api.GET('/v1/keys')).catch((e: unknown) => e)) as LaurelError;
      expect(long.message).toBe(
        'GET /v1/keys answered 429: Too many requests (Laurel asked to wait 120 s (Retry-After), longer than the ' +
          'longest wait of 5000 ms (retry.maxWaitMs); send it again after that, or raise the bound)',
      );
      expect(server.count('GET', '/v1/keys')).toBe(1);

      const spent = (await laurel
        .call(laurel.api.GET('/v1/apps', { params: { query: { chain: 'local' } } }))
        .catch((e: unknown) => e)) as LaurelError;
      expect(spent.message).toBe(
        'GET /v1/apps answered 429: Too many requests (still rate limited after 3 attempts (retry.attempts); ' +
          'send it again later, or allow more attempts)',
      );
      expect(server.count('GET', '/v1/apps')).toBe(3);
    } finally {
      await server.close();
    }
  });
});

describe('against a real Laurel with a tiny request budget', () => {
  let laurel: TestLaurel;
  beforeAll(async () => {
    laurel = await startTestLaurel({ env: { RATE_LIMIT_MAX_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '2' } });
  }, 120_000);
  afterAll(async () => {
    await laurel?.stop();
  });

  it('waits for Retry-After on a 429 and sends the same write again under the same Idempotency-Key', async () => {
    const { laurel: client, seen } = recordingClient(laurel.url);
    const { apiKey } = await signIn(client, Wallet.createRandom());
    // Spend the budget without retries.
    const spender = new Laurel({ url: laurel.url, apiKey, retry: false });
    await waitUntil('the budget spent', async () => {
      const answer = await spender.api.GET('/v1/keys');
      return answer.response.status === 429 && answer.response;
    });

    const impatient = new Laurel({ url: laurel.url, apiKey, retry: { maxWaitMs: 0 } });
    const refused = (await impatient
      .call(impatient.api.GET('/v1/keys'))
      .catch((e: unknown) => e)) as LaurelError;
    expect(refused).toBeInstanceOf(LaurelError);
    expect(refused.status).toBe(429);
    expect(refused.message).toMatch(
      /\(Laurel asked to wait \d s \(Retry-After\), longer than the longest wait of 0 ms/,
    );

    const created = await client.call(
      client.api.POST('/v1/webhook', { body: { url: 'https://127.0.0.1:9/hook', events: ['transaction'] } }),
    );
    expect(created.webhook).toMatchObject({ url: 'https://127.0.0.1:9/hook', disabled: true });
    const posts = seen.filter((s) => s.path === '/v1/webhook');
    expect(posts.map((s) => s.status)).toEqual([429, 201]);
    expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey);
    const { webhooks } = await client.call(client.api.GET('/v1/webhooks'));
    expect(webhooks).toHaveLength(1); // created once
  }, 60_000);
});

describe('against a real Laurel on a chain', () => {
  let chain: TestChain;
  let laurel: TestLaurel;
  beforeAll(async () => {
    chain = await startTestChain();
    // RPC_TIMEOUT_MS 1 s: a transaction recorded 2 s ago is no longer on its way (rebroadcaster.ts).
    laurel = await startTestLaurel({ chain, worker: false, env: { RPC_TIMEOUT_MS: '1000' } });
  }, 120_000);
  afterAll(async () => {
    await laurel?.stop();
    await chain?.stop();
  });

  async function build(client: Laurel, name: string) {
    const { unsignedTransaction } = await client.call(
      client.api.POST('/v1/app/new', { body: { chain: 'local', name } }),
    );
    return unsignedTransaction as unknown as Parameters<Wallet['signTransaction']>[0] & { nonce: number };
  }

  it('throws the nonce_gap of a nonce never sent (the caller rebuilds), and sends nothing twice', async () => {
    const wallet = chain.wallets[5]!;
    const { laurel: client, seen } = recordingClient(laurel.url);
    const { apiKey } = await signIn(client, wallet);
    const first = await wallet.signTransaction(await build(client, 'Declined in the wallet'));
    const second = await wallet.signTransaction(await build(client, 'Signed first'));

    const gap = (await executeSigned(
      client,
      { chain: 'local', signedTransaction: second },
      { wait: true },
    ).catch((e: unknown) => e)) as LaurelError;
    expect(gap).toBeInstanceOf(LaurelError);
    expect(gap.code).toBe('nonce_gap');
    expect(gap.body).toMatchObject({ missing_nonces: [Transaction.from(first).nonce], rebroadcasting: [] });
    expect(seen.filter((s) => s.path === '/v1/transactions/execute-and-wait')).toHaveLength(1);

    expect(
      await executeSigned(client, { chain: 'local', signedTransaction: first }, { wait: true }),
    ).toMatchObject({
      status: 'success',
    });
    const mined = await executeSigned(client, { chain: 'local', signedTransaction: second }, { wait: true });
    expect(mined).toMatchObject({ status: 'success', receipt: { status: 1 } });

    // laurel follow, as a library call of the CLI and as a real process of the built package.
    const lines: string[] = [];
    const errors: string[] = [];
    const io = {
      out: (line: string) => lines.push(line),
      err: (line: string) => errors.push(line),
      env: { LAUREL_URL: laurel.url },
      stopped: new Promise<void>(() => {}),
    };
    expect(await runCli(['follow', mined.transactionHash, '--api-key', apiKey], io)).toBe(0);
    expect(lines).toEqual([
      `${mined.transactionHash} success in block ${mined.receipt!.blockNumber} (1 confirmation)`,
    ]);
    expect(errors).toEqual([]);
    expect(await runCli(['follow', mined.transactionHash], { ...io, env: { LAUREL_URL: laurel.url } })).toBe(
      1,
    );
    expect(errors).toEqual([
      'laurel follow: no API key: set LAUREL_API_KEY or pass --api-key (the key of the wallet that signed it)',
    ]);

    await run(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'packages/client/tsconfig.json'],
      {
        cwd: root,
      },
    );
    const cli = await run(
      process.execPath,
      ['packages/client/dist/cli.js', 'follow', mined.transactionHash],
      {
        cwd: root,
        env: { ...process.env, LAUREL_URL: laurel.url, LAUREL_API_KEY: apiKey },
      },
    );
    expect(cli.stdout).toBe(
      `${mined.transactionHash} success in block ${mined.receipt!.blockNumber} (1 confirmation)\n`,
    );
  }, 120_000);

  it('follows the nonces Laurel sends again after the chain dropped them, then sends the transaction again', async () => {
    const wallet = chain.wallets[6]!;
    const { laurel: client, seen } = recordingClient(laurel.url);
    await signIn(client, wallet);
    const dropped = await wallet.signTransaction(await build(client, 'Mined, then reorganised away'));
    const droppedHash = Transaction.from(dropped).hash!;
    await executeSigned(client, { chain: 'local', signedTransaction: dropped }, { wait: true });
    await chain.provider.send('anvil_reorg', [1, []]);
    expect(await chain.provider.getTransaction(droppedHash)).toBeNull();

    const behind = await wallet.signTransaction(await build(client, 'Behind the dropped one'));
    const sending = executeSigned(client, { chain: 'local', signedTransaction: behind }, { wait: true });
    await waitUntil('the nonce gap answered', () => seen.some((s) => s.status === 409));
    // Laurel's check of receipts (a job, not run here) finds the replaced block and sends it again.
    await laurel.tasks.receiptChecks.checkReceipts(chain.chainId);
    const answer = await sending;
    expect(answer).toMatchObject({ status: 'success', receipt: { status: 1 } });
    expect((await chain.provider.getTransactionReceipt(droppedHash))?.status).toBe(1);

    const executes = seen.filter((s) => s.path === '/v1/transactions/execute-and-wait');
    expect(executes.map((s) => s.status)).toEqual([200, 409, 200]);
    expect(seen.filter((s) => s.path === `/v1/transactions/${droppedHash}`).length).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
