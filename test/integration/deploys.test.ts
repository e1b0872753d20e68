import http from 'node:http';
import { rmSync } from 'node:fs';
import { Transaction, type Wallet } from 'ethers';
import { Client } from 'pg';
import { issueApiKey } from '../helpers/auth';
import { chainConfigOf, startTestChain } from '../helpers/chain';
import { createTestDatabase } from '../helpers/database';
import { startHostileRpc } from '../helpers/hostile-rpc';
import { request, type TestChain } from '../helpers/laurel';
import {
  makeDataDir,
  rpc,
  startLaurelProcess,
  stopLaurelProcess,
  type StartedLaurel,
} from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

/**
 * A deploy as a process manager makes it: SIGTERM to the built service (`node dist/src/main.js`)
 * while clients hold kept-alive connections. What a stopping process owes them: /ready 503 first,
 * `Connection: close` on every answer of the drain, no request taken once it started (new
 * connections refused; a request read on a kept-alive connection is answered 503 with
 * `Connection: close`), every request in flight answered within SHUTDOWN_GRACE_SECONDS
 * (execute-and-wait with its Timeout answer), broadcasts and jobs ended before the pools close.
 */
const GRACE_SECONDS = 4;
const ANSWER_MARGIN_MS = 1000;

let database: { url: string; drop(): Promise<void> };
let chain: TestChain;
const dataDirs: string[] = [];
const running: StartedLaurel[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  chain = await startTestChain();
}, 60_000);

afterEach(async () => {
  await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
  for (const started of running.splice(0)) {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      await stopLaurelProcess(started, 'SIGTERM');
    }
  }
});

afterAll(async () => {
  await chain?.stop();
  await database?.drop();
  for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}): Promise<StartedLaurel> {
  const dataDir = makeDataDir();
  dataDirs.push(dataDir);
  const started = await startLaurelProcess(dataDir, {
    DATABASE_URL: database.url,
    LOCAL_CHAIN: 'off',
    CHAINS: JSON.stringify([chainConfigOf(chain)]),
    SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
    SHUTDOWN_ANSWER_MARGIN_MS: String(ANSWER_MARGIN_MS),
    EXECUTE_WAIT_TIMEOUT_SECONDS: '60',
    RATE_LIMIT_MAX_REQUESTS: '1000000',
    KEY_REQUESTS_PER_CLIENT: '100000',
    DATABASE_POOL_SIZE: '4',
    WORKER_POOL_SIZE: '4',
    WORKER_CONCURRENCY: '2',
    // The stop's steps are debug lines; every request's line is info.
    LOG_LEVEL: 'debug',
    ...env,
  });
  running.push(started);
  return started;
}

/** One request and what became of it, timed by the client. */
interface Exchange {
  path: string;
  sentAt: number;
  receivedAt: number;
  status?: number;
  connection?: string;
  body?: Record<string, unknown>;
  /** No answer: the connection refused, closed or reset. */
  error?: string;
}

/** A request on `agent` (kept alive: the request itself asks to keep its connection). */
function exchange(
  agent: http.Agent,
  url: string,
  path: string,
  options: { method?: string; apiKey?: string; body?: unknown } = {},
): Promise<Exchange> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const failed = (error: NodeJS.ErrnoException) =>
      resolve({ path, sentAt, receivedAt: Date.now(), error: error.code ?? error.message });
    const req = http.request(
      `${url}${path}`,
      {
        method: options.method ?? 'GET',
        agent,
        headers: {
          ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', failed);
        res.on('end', () =>
          resolve({
            path,
            sentAt,
            receivedAt: Date.now(),
            status: res.statusCode,
            connection: res.headers.connection,
            body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
          }),
        );
      },
    );
    req.on('error', failed);
    req.end(payload);
  });
}

/** A client on one kept-alive connection, asking `path` again and again until a request gets no answer. */
async function keptAlive(url: string, path: string, apiKey: string, into: Exchange[]): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (;;) {
      const answer = await exchange(agent, url, path, { apiKey });
      into.push(answer);
      if (answer.error) return;
    }
  } finally {
    agent.destroy();
  }
}

/** The service's JSON log lines (LOG_LEVEL=debug on a pipe). */
function logLines(started: StartedLaurel): { time: number; msg: string; [field: string]: unknown }[] {
  return started
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time: number; msg: string });
}

/** Builds an app creation for `wallet` and signs it. */
async function signedBuild(url: string, apiKey: string, wallet: Wallet, name: string): Promise<string> {
  const built = await request(url, 'POST', '/v1/app/new', { apiKey, body: { chain: 'local', name } });
  expect(built.status).toBe(200);
  return wallet.signTransaction(built.body.unsignedTransaction as object);
}

it('SIGTERM under load on kept-alive connections: /ready 503 and Connection: close on every answer of the drain, no request taken after it started, execute-and-waits in flight answered within the grace, the pools closed last', async () => {
  const laurel = await start();
  const wallet = chain.wallets[3];
  const apiKey = await issueApiKey(laurel.url, wallet);

  // Two execute-and-waits in flight when the stop begins: the node mines nothing meanwhile.
  const signed = [
    await signedBuild(laurel.url, apiKey, wallet, 'Waiting at a deploy 1'),
    await signedBuild(laurel.url, apiKey, wallet, 'Waiting at a deploy 2'),
  ];
  const hashes = signed.map((raw) => Transaction.from(raw).hash!);
  await rpc(chain.rpcUrl, 'evm_setAutomine', [false]);
  const waiting = signed.map((raw) =>
    exchange(new http.Agent({ keepAlive: true }), laurel.url, '/v1/transactions/execute-and-wait', {
      method: 'POST',
      apiKey,
      body: { chain: 'local', signed_transaction: raw },
    }),
  );
  for (const hash of hashes) {
    await waitUntil('the transaction in the node’s pool', async () =>
      (await rpc(chain.rpcUrl, 'eth_getTransactionByHash', [hash])) ? true : undefined,
    );
  }

  // Clients asking again and again, each on its kept-alive connection; one of them is a readiness probe.
  const paths = ['/ready', '/health', ...Array.from({ length: 10 }, () => '/v1/chains')];
  const exchanges = paths.map(() => [] as Exchange[]);
  const clients = paths.map((path, i) => keptAlive(laurel.url, path, apiKey, exchanges[i]));
  await waitUntil('every client answered', () => exchanges.every((answers) => answers.length >= 10));

  expect(await stopLaurelProcess(laurel, 'SIGTERM')).toBe(0);
  await Promise.all(clients);
  const answers = await Promise.all(waiting);
  expect(laurel.output()).toContain('laurel: stopped');

  const lines = logLines(laurel);
  const drainedFrom = lines.find((line) => line.msg === 'laurel: SIGTERM received, stopping')!.time;
  const all = exchanges.flat();
  // Sent after the drain started (the server's clock: the same machine): not taken. A 503 with
  // Connection: close, or no answer (the port no longer listens).
  const sentAfter = all.filter((answer) => answer.sentAt > drainedFrom);
  expect(sentAfter.length).toBeGreaterThan(0);
  for (const answer of sentAfter) {
    if (answer.error) {
      expect(answer.error).toMatch(/ECONNREFUSED|ECONNRESET|socket hang up/);
      continue;
    }
    expect(answer).toMatchObject({
      status: answer.path === '/health' ? 200 : 503,
      connection: 'close',
      body:
        answer.path === '/health'
          ? { status: 'ok' }
          : answer.path === '/ready'
            ? { status: 'not_ready', failing: ['shutting down'] }
            : { status: 'failed', error: 'Laurel is shutting down' },
    });
  }
  // Sent before: answered (none cut), and each connection's last answer closed it.
  expect(all.filter((answer) => answer.sentAt < drainedFrom && answer.error)).toEqual([]);
  for (const answers of exchanges) {
    const lastAnswered = answers.filter((answer) => !answer.error).at(-1)!;
    expect(lastAnswered.connection).toBe('close');
  }

  // The execute-and-waits were answered what Laurel knows, on a connection said closed, within the grace.
  for (const [i, answer] of answers.entries()) {
    expect(answer).toMatchObject({
      status: 200,
      connection: 'close',
      body: { status: 'failed', error: 'Timeout', transactionHash: hashes[i] },
    });
    expect(answer.receivedAt - drainedFrom).toBeGreaterThanOrEqual(
      GRACE_SECONDS * 1000 - ANSWER_MARGIN_MS - 250,
    );
    expect(answer.receivedAt - drainedFrom).toBeLessThan(GRACE_SECONDS * 1000);
  }

  // The stop's order: the HTTP drain, the worker, the modules (broadcasts), the chains, the pools last;
  // every request was answered (its log line) before the pools closed.
  const steps = lines.filter((line) => line.msg === 'stopping').map((line) => line.step as string);
  const order = ['http server', 'worker', 'modules', 'chain providers', 'prisma', 'database pool'];
  expect(steps.filter((step) => order.includes(step))).toEqual(order);
  const poolsClosing = lines.find((line) => line.msg === 'stopping' && line.step === 'prisma')!.time;
  const requestLines = lines.filter((line) => line.msg === 'request');
  expect(
    requestLines
      .filter((line) => line.path === '/v1/transactions/execute-and-wait')
      .map((line) => line.status),
  ).toEqual([200, 200]);
  expect(requestLines.filter((line) => line.time > poolsClosing)).toEqual([]);
  expect(laurel.output()).not.toMatch(/Cannot use a pool|error while stopping|unanswered at the end/);

  // Nothing lost: once mined, the next process's receipt jobs record both.
  await rpc(chain.rpcUrl, 'evm_mine');
  await start();
  const db = new Client({ connectionString: database.url });
  await db.connect();
  try {
    await waitUntil('both receipts recorded', async () => {
      const { rows } = await db.query<{ status: string }>(
        'SELECT status FROM transactions WHERE hash = ANY($1)',
        [hashes],
      );
      return rows.length === 2 && rows.every((row) => row.status === 'success') ? true : undefined;
    });
  } finally {
    await db.end();
  }
}, 180_000);

it('a broadcast under way past the grace ends before the pools close: refused by the node, it is un-recorded, and the wallet sends on', async () => {
  const proxy = await startHostileRpc(chain.rpcUrl);
  try {
    const chains = JSON.stringify([{ ...chainConfigOf(chain), rpcUrl: proxy.url }]);
    const laurel = await start({ CHAINS: chains });
    const wallet = chain.wallets[4];
    const apiKey = await issueApiKey(laurel.url, wallet);
    const raw = await signedBuild(laurel.url, apiKey, wallet, 'Refused during a deploy');
    const hash = Transaction.from(raw).hash!;

    // The node answers the broadcast after the grace has ended, refusing it.
    await proxy.set({
      refusedCalls: {
        eth_sendRawTransaction: {
          afterMs: GRACE_SECONDS * 1000 + 2000,
          code: -32000,
          message: 'insufficient funds for gas * price + value',
        },
      },
    });
    const sent = exchange(new http.Agent({ keepAlive: true }), laurel.url, '/v1/transactions/execute', {
      method: 'POST',
      apiKey,
      body: { chain: 'local', signed_transaction: raw },
    });
    await waitUntil('the broadcast at the node', () =>
      proxy.calls('eth_sendRawTransaction') > 0 ? true : undefined,
    );
    expect(await stopLaurelProcess(laurel, 'SIGTERM')).toBe(0);
    // Its broadcast was seen to its end before the pools closed: the node's refusal un-recorded it.
    const db = new Client({ connectionString: database.url });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT status FROM transactions WHERE hash = $1', [hash]);
      expect(rows).toEqual([]);
    } finally {
      await db.end();
    }
    expect(laurel.output()).not.toMatch(/Cannot use a pool|error while stopping/);
    // The request itself, past the grace, was cut, and the log says so.
    expect((await sent).error).toBeDefined();
    expect(laurel.output()).toContain('requests still unanswered at the end of the grace: cut');

    // The next process: the client sends its transaction again (nothing was sent), and the
    // wallet's next one follows it (no gap left behind).
    await proxy.set({ refusedCalls: {} });
    const next = await start({ CHAINS: chains });
    for (const signed of [raw, await signedBuild(next.url, apiKey, wallet, 'After the deploy')]) {
      const result = await request(next.url, 'POST', '/v1/transactions/execute-and-wait', {
        apiKey,
        body: { chain: 'local', signed_transaction: signed },
      });
      expect(result).toMatchObject({ status: 200, body: { status: 'success' } });
    }
  } finally {
    await proxy.close();
  }
}, 180_000);
