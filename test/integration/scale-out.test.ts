import { rmSync } from 'node:fs';
import { Transaction, Wallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { chainConfigOf, startTestChain, type TestChain } from '../helpers/chain';
import { createTestDatabase } from '../helpers/database';
import { request } from '../helpers/laurel';
import {
  makeDataDir,
  startLaurelProcess,
  stopLaurelProcess,
  type StartedLaurel,
  statusOf,
} from '../helpers/laurel-process';
import { subscribe, subscriptionClient } from '../helpers/subscriptions';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { waitUntil } from '../helpers/wait';

/**
 * Laurel scaled out: one PostgreSQL and one anvil, started here; two `api` processes, one
 * `worker` and two `indexer`s, all the built service (`node dist/src/main.js`) with LAUREL_ROLES. What must hold is
 * what a single process guarantees: nonces, revocation, rate limits and webhook deliveries are
 * shared through PostgreSQL, and a process stopping with SIGTERM loses no request.
 */
const BUDGET = 80;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let chain: TestChain;
let receiver: WebhookReceiver;
const dataDirs: string[] = [];
const processes: StartedLaurel[] = [];
let api1: StartedLaurel;
let api2: StartedLaurel;

async function startRole(roles: string): Promise<StartedLaurel> {
  const dataDir = makeDataDir();
  dataDirs.push(dataDir);
  const started = await startLaurelProcess(dataDir, {
    DATABASE_URL: database.url,
    LOCAL_CHAIN: 'off',
    CHAINS: JSON.stringify([chainConfigOf(chain)]),
    LAUREL_ROLES: roles,
    RATE_LIMIT_MAX_REQUESTS: String(BUDGET),
    RATE_LIMIT_WINDOW_SECONDS: '3600',
    KEY_REQUESTS_PER_CLIENT: '100000',
    KEY_CHALLENGES_PER_WALLET: '100000',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    SHUTDOWN_GRACE_SECONDS: '10',
    DATABASE_POOL_SIZE: '4',
    WORKER_POOL_SIZE: '6',
  });
  processes.push(started);
  return started;
}

beforeAll(async () => {
  database = await createTestDatabase();
  chain = await startTestChain();
  receiver = await startWebhookReceiver();
  [api1, api2] = await Promise.all([startRole('api'), startRole('api')]);
  await startRole('worker');
  await Promise.all([startRole('indexer'), startRole('indexer')]);
}, 180_000);

afterAll(async () => {
  for (const started of processes) {
    if (started.child.exitCode === null) await stopLaurelProcess(started, 'SIGTERM');
  }
  await receiver?.stop();
  await chain?.stop();
  await database?.drop();
  for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

it('says which roles run; a worker process serves its probes only', async () => {
  expect(api1.output()).toContain('laurel: roles       api');
  expect(api1.output()).toContain('GraphQL');
  const worker = processes[2];
  expect(worker.output()).toContain('laurel: roles       worker');
  expect(worker.output()).not.toContain('GraphQL');
  expect((await request(worker.url, 'GET', '/ready')).status).toBe(200);
  // No API at all (openapi.json describes processes that serve it): a plain request.
  expect(await statusOf(`${worker.url}/key/challenge`, { method: 'POST' })).toBe(404);
});

it('20 parallel builds for one sender over both API processes get distinct consecutive nonces, and all execute; the worker delivers each transaction event once', async () => {
  const wallet = chain.wallets[1];
  const apiKey = await issueApiKey(api1.url, wallet);
  const path = '/scale-out';
  receiver.route(path, answerChallenge());
  const created = await request<{ webhook: { id: number } }>(api2.url, 'POST', '/v1/webhook', {
    apiKey,
    body: { url: receiver.url(path), events: ['transaction'] },
  });
  expect(created.status).toBe(201);
  const tested = await request(api1.url, 'POST', `/v1/webhook/${created.body.webhook.id}/test`, { apiKey });
  expect(tested.status).toBe(200);

  const builds = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      request<{ unsignedTransaction: Record<string, unknown> }>(
        i % 2 ? api1.url : api2.url,
        'POST',
        '/v1/app/new',
        { apiKey, body: { chain: 'local', name: `Scaled ${i}` } },
      ),
    ),
  );
  const nonces = builds.map((build) => build.body.unsignedTransaction.nonce as number).sort((a, b) => a - b);
  expect(new Set(nonces).size).toBe(20);
  expect(nonces[19] - nonces[0]).toBe(19);

  const signed = await Promise.all(
    builds.map((build) => wallet.signTransaction(build.body.unsignedTransaction)),
  );
  const executed = await Promise.all(
    signed.map((raw, i) =>
      request(i % 2 ? api2.url : api1.url, 'POST', '/v1/transactions/execute-and-wait', {
        apiKey,
        body: { chain: 'local', signed_transaction: raw },
      }),
    ),
  );
  expect(executed.map((result) => [result.status, result.body.status])).toEqual(
    Array.from({ length: 20 }, () => [200, 'success']),
  );

  // One `transaction` event per transaction (after the test call), delivered by the worker.
  const hashes = signed.map((raw) => Transaction.from(raw).hash);
  const calls = await receiver.waitForCalls(path, 21, 60_000);
  const events = calls
    .map((call) => JSON.parse(call.body) as { event: string; payload: { hash?: string } | null })
    .filter((body) => body.event === 'transaction')
    .map((body) => body.payload!.hash);
  expect(events.sort()).toEqual([...hashes].sort());
}, 180_000);

it('only one indexer ingests a chain; the other stands by', async () => {
  const indexers = processes.slice(3, 5);
  const statuses = await waitUntil('both indexers to report', async () => {
    const all = await Promise.all(
      indexers.map(async (started) => {
        const ready = await request<{ checks: { indexer: { active: boolean; lag: number | null }[] } }>(
          started.url,
          'GET',
          '/ready',
        );
        return ready.body.checks?.indexer?.[0];
      }),
    );
    return all.every((status) => status !== undefined) ? all : undefined;
  });
  expect(statuses.map((status) => status!.active).sort()).toEqual([false, true]);
  const head = await chain.provider.getBlockNumber();
  // The active one catches up with the chain: the apps built above are in the index.
  await waitUntil('the active indexer to reach the head', async () => {
    for (const started of indexers) {
      const ready = await request<{ checks: { indexer: { active: boolean; cursor: number }[] } }>(
        started.url,
        'GET',
        '/ready',
      );
      const status = ready.body.checks.indexer[0];
      if (status.active && status.cursor >= head) return true;
    }
    return undefined;
  });
});

it('a key revoked through one API process is refused by it at once and by the other within a second', async () => {
  const wallet = Wallet.createRandom();
  const [keep, revoked] = [await issueApiKey(api1.url, wallet), await issueApiKey(api2.url, wallet)];
  const listed = await request<{ keys: { id: string }[] }>(api2.url, 'GET', '/v1/keys', { apiKey: revoked });
  expect((await request(api2.url, 'GET', '/v1/keys', { apiKey: revoked })).status).toBe(200);
  const second = listed.body.keys[1];
  expect((await request(api1.url, 'GET', '/v1/keys', { apiKey: revoked })).status).toBe(200);
  const revokedAt = Date.now();
  expect((await request(api1.url, 'DELETE', `/v1/keys/${second.id}`, { apiKey: keep })).status).toBe(200);
  expect((await request(api1.url, 'GET', '/v1/keys', { apiKey: revoked })).status).toBe(401);
  await waitUntil('the other process to refuse the revoked key', async () =>
    (await request(api2.url, 'GET', '/v1/keys', { apiKey: revoked })).status === 401 ? true : undefined,
  );
  // Within the cache's lifetime (a second), plus the time the requests themselves took.
  expect(Date.now() - revokedAt).toBeLessThan(3_000);
  expect(await request(api2.url, 'GET', '/v1/keys', { apiKey: revoked })).toMatchObject({
    status: 401,
    body: { status: 'failed', error: 'API key revoked' },
  });
});

it('a key revoked through one API process closes its WebSockets on both within a second (4401)', async () => {
  const wallet = Wallet.createRandom();
  const keep = await issueApiKey(api1.url, wallet);
  const revoked = await issueApiKey(api2.url, wallet);
  const listed = await request<{ keys: { id: string }[] }>(api1.url, 'GET', '/v1/keys', { apiKey: keep });
  const sockets = [subscriptionClient(api1.url, revoked), subscriptionClient(api2.url, revoked)];
  try {
    const held = sockets.map((connected) =>
      subscribe<{ profileChanged: { xp_balance: string } }>(
        connected,
        'subscription { profileChanged(chain: "local") { xp_balance } }',
      ),
    );
    await waitUntil('both subscriptions pushed', () => held.every((received) => received.values.length > 0));
    const closedAt: number[] = [];
    for (const connected of sockets) void connected.closed.then(() => closedAt.push(Date.now()));
    const revokedAt = Date.now();
    const deleted = await request(api1.url, 'DELETE', `/v1/keys/${listed.body.keys[1].id}`, { apiKey: keep });
    expect(deleted.status).toBe(200);
    for (const connected of sockets) {
      expect(await connected.closed).toEqual({ code: 4401, reason: 'API key revoked' });
    }
    expect(Math.max(...closedAt) - revokedAt).toBeLessThan(1_000);
  } finally {
    await Promise.all(sockets.map((connected) => connected.dispose()));
  }
});

it('the rate limit is one budget across processes', async () => {
  const apiKey = await issueApiKey(api1.url, Wallet.createRandom());
  for (let i = 0; i < BUDGET; i++) {
    expect((await request(i % 2 ? api1.url : api2.url, 'GET', '/v1/chains', { apiKey })).status).toBe(200);
  }
  expect((await request(api1.url, 'GET', '/v1/chains', { apiKey })).status).toBe(429);
  expect((await request(api2.url, 'GET', '/v1/chains', { apiKey })).status).toBe(429);
}, 60_000);

it('SIGTERM to one API process while requests run loses none of them: the client retries against the other', async () => {
  const apiKey = await issueApiKey(api2.url, Wallet.createRandom());
  const urls = [api1.url, api2.url];
  /**
   * A client with two servers: what a stopping server did not take (a connection refused, or its
   * 503 `Laurel is shutting down` on a kept-alive connection) is sent to the next.
   */
  const resilient = async (i: number) => {
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        const answer = await request(urls[(i + attempt) % 2], 'GET', '/v1/chains', { apiKey });
        if (answer.status !== 503 || answer.body.error !== 'Laurel is shutting down') return answer;
      } catch {
        // refused or reset: try the other server
      }
    }
    throw new Error('no server answered');
  };
  const results: Promise<{ status: number }>[] = [];
  for (let i = 0; i < 40; i++) {
    results.push(resilient(i));
    if (i === 10) void stopLaurelProcess(api1, 'SIGTERM');
    await new Promise((resolve) => setImmediate(resolve));
  }
  const answered = await Promise.all(results);
  expect(answered.map((result) => result.status)).toEqual(Array.from({ length: 40 }, () => 200));
  expect(await api1.exited).toBe(0);
  expect(api1.output()).toContain('laurel: stopped');
  expect((await request(api2.url, 'GET', '/v1/chains', { apiKey })).status).toBe(200);
  expect(
    await waitUntil('api2 ready', async () =>
      (await request(api2.url, 'GET', '/ready')).status === 200 ? true : undefined,
    ),
  ).toBe(true);
}, 60_000);
