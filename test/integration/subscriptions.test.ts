import { Transaction, Wallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { startTestChain, type TestChain } from '../helpers/chain';
import { createTestDatabase } from '../helpers/database';
import { client, createApp, type Unsigned } from '../helpers/flow';
import { loggerInto } from '../helpers/logs';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import {
  subscribe,
  subscriptionClient,
  type Received,
  type SubscriptionClient,
} from '../helpers/subscriptions';
import { waitUntil } from '../helpers/wait';

/**
 * GraphQL subscriptions across processes: `live` serves the API only (no indexer, no worker) and
 * holds the subscriptions; every change is caused through REST on `writer`, another Laurel on the
 * same database and chain, whose indexer and worker write it. What `live` pushes it can only have
 * heard through PostgreSQL's notifications.
 */
const PER_KEY = 3;
/** The wallet budget of `live` (RATE_LIMIT_MAX_REQUESTS): each subscription started costs one. */
const BUDGET = 40;
let chain: TestChain;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let writer: TestLaurel;
let live: TestLaurel;
/** What `live` logged at warn and above. */
const liveLog: string[] = [];
let owner: Wallet;
let ownerKey: string;
let appId: string;
const user = Wallet.createRandom().address;
const clients: SubscriptionClient[] = [];

const send = (method: string, params: unknown[] = []) => chain.provider.send(method, params);

function connect(apiKey?: string): SubscriptionClient {
  const connected = subscriptionClient(live.url, apiKey);
  clients.push(connected);
  return connected;
}

beforeAll(async () => {
  chain = await startTestChain();
  database = await createTestDatabase();
  const shared = { url: database.url, drop: async () => undefined };
  writer = await startTestLaurel({
    chain,
    database: shared,
    chainEntry: { finalityDepth: 8 },
    env: { INDEXER_POLL_INTERVAL_MS: '100', TRANSACTION_DROP_AFTER_SECONDS: '2' },
  });
  live = await startTestLaurel({
    chain,
    database: shared,
    env: {
      LAUREL_ROLES: 'api',
      SUBSCRIPTION_PUSH_INTERVAL_MS: '100',
      SUBSCRIPTIONS_PER_KEY: String(PER_KEY),
      RATE_LIMIT_MAX_REQUESTS: String(BUDGET),
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      // Far shorter than the tests' connections: a WebSocket outlives the HTTP request that opened it.
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
    },
    log: loggerInto('warn', liveLog),
  });
  owner = chain.wallets[1];
  ownerKey = await issueApiKey(writer.url, owner);
  appId = await createApp(client(writer.url, ownerKey, owner), 'Live');
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((connected) => connected.dispose()));
  await live?.stop();
  await writer?.stop();
  await database?.drop();
  await chain?.stop();
}, 60_000);

/** Builds a reward of `amount` XP to `user` on `writer` and signs it with the owner's wallet. */
async function signedReward(amount: number): Promise<string> {
  const built = await request<{ unsignedTransaction: Unsigned }>(writer.url, 'POST', '/v1/reward/XP', {
    apiKey: ownerKey,
    body: { chain: 'local', app_id: appId, receiver: user, amount, action_id: 'quest' },
  });
  expect(built.status).toBe(200);
  return owner.signTransaction(built.body.unsignedTransaction);
}

async function execute(signed: string, wait: boolean): Promise<{ transactionHash: string; status: string }> {
  const path = wait ? '/v1/transactions/execute-and-wait' : '/v1/transactions/execute';
  const executed = await request<{ transactionHash: string; status: string }>(writer.url, 'POST', path, {
    apiKey: ownerKey,
    body: { chain: 'local', signed_transaction: signed },
  });
  expect(executed.status).toBe(200);
  return executed.body;
}

/** Waits for the `count`-th push of `received`. */
const pushed = <T>(received: Received<T>, count: number, what: string) =>
  waitUntil(
    `${what}: push ${count}`,
    () => received.values.length >= count || received.errors.length > 0,
    20_000,
  );

describe('pushes what another process changed', () => {
  let connected: SubscriptionClient;
  let profile: Received<{ profileChanged: { xp_balance: string } }>;
  let leaderboard: Received<{ leaderboardChanged: { user: string; xp_rewarded: string }[] }>;
  let status: Received<{ transactionStatus: { status: string; blockNumber: number | null } }>;
  const xp = () => profile.values.map((value) => value.profileChanged.xp_balance);
  const pages = () =>
    leaderboard.values.map((value) =>
      value.leaderboardChanged.map((entry) => `${entry.user}:${entry.xp_rewarded}`),
    );
  const statuses = () => status.values.map((value) => value.transactionStatus.status);

  beforeAll(() => {
    connected = connect(ownerKey);
    profile = subscribe(
      connected,
      `subscription ($user: String, $app: String) {
        profileChanged(chain: "local", user_id: $user, app_id: $app) { xp_balance }
      }`,
      { user, app: appId },
    );
    leaderboard = subscribe(
      connected,
      `subscription ($app: String) {
        leaderboardChanged(chain: "local", app_id: $app, page_size: 5) { user xp_rewarded }
      }`,
      { app: appId },
    );
  });

  it('the current profile and leaderboard page first, then each change of them', async () => {
    await pushed(profile, 1, 'profile');
    await pushed(leaderboard, 1, 'leaderboard');
    expect(xp()).toEqual(['0']);
    expect(pages()).toEqual([[]]);

    await execute(await signedReward(5), true);
    await pushed(profile, 2, 'profile');
    await pushed(leaderboard, 2, 'leaderboard');
    expect(xp()).toEqual(['0', '5']);
    expect(pages()).toEqual([[], [`${user}:5`]]);
  });

  it('a transaction: pending, success once mined; a reorganisation takes it back to pending, then dropped (another transaction of the wallet took its nonce), and the index changes it made are undone', async () => {
    await send('evm_setAutomine', [false]);
    const signed = await signedReward(2);
    const { transactionHash } = await execute(signed, false);
    status = subscribe(
      connected,
      `subscription ($hash: String!) { transactionStatus(hash: $hash) { status blockNumber } }`,
      { hash: transactionHash },
    );
    await pushed(status, 1, 'status');
    expect(statuses()).toEqual(['pending']);

    await send('evm_mine');
    await pushed(status, 2, 'status');
    expect(status.values[1].transactionStatus).toEqual({
      status: 'success',
      blockNumber: await chain.provider.getBlockNumber(),
    });
    await pushed(profile, 3, 'profile');
    await pushed(leaderboard, 3, 'leaderboard');
    expect(xp()).toEqual(['0', '5', '7']);

    await send('evm_setAutomine', [true]);
    // The new block holds another transaction of the owner with the reward's nonce: the node refuses
    // the reward when Laurel sends it again, so it is dropped (a reward it could send again is mined
    // again: test/integration/reorgs.test.ts).
    const { nonce } = Transaction.from(signed);
    const other = await owner.signTransaction(
      await owner.populateTransaction({ to: owner.address, value: 1n, nonce }),
    );
    await send('anvil_reorg', [1, [[other, 0]]]);
    await pushed(profile, 4, 'profile');
    await pushed(leaderboard, 4, 'leaderboard');
    await pushed(status, 4, 'status');
    expect(statuses()).toEqual(['pending', 'success', 'pending', 'dropped']);

    // One more change, pushed after everything above: nothing else was pushed in between.
    await execute(await signedReward(1), true);
    await pushed(profile, 5, 'profile');
    await pushed(leaderboard, 5, 'leaderboard');
    expect(xp()).toEqual(['0', '5', '7', '5', '6']);
    expect(pages()).toEqual([[], [`${user}:5`], [`${user}:7`], [`${user}:5`], [`${user}:6`]]);
    expect(statuses()).toEqual(['pending', 'success', 'pending', 'dropped']);
    expect([...profile.errors, ...leaderboard.errors, ...status.errors]).toEqual([]);
  });
});

describe('survives', () => {
  it('a lost LISTEN session: reopened, and what was missed meanwhile read again', async () => {
    const connected = connect(await issueApiKey(writer.url, chain.wallets[5]));
    const profile = subscribe<{ profileChanged: { xp_balance: string } }>(
      connected,
      'subscription ($user: String) { profileChanged(chain: "local", user_id: $user) { xp_balance } }',
      { user },
    );
    await pushed(profile, 1, 'profile');
    // Only this file's database: the other files running meanwhile share the server.
    const [{ terminated }] = await writer.services.prisma.$queryRaw<{ terminated: number }[]>`
      SELECT count(pg_terminate_backend(pid))::int AS terminated FROM pg_stat_activity
       WHERE query LIKE 'LISTEN laurel_%' AND datname = current_database() AND pid <> pg_backend_pid()`;
    expect(terminated).toBeGreaterThanOrEqual(1);
    await execute(await signedReward(3), true);
    await pushed(profile, 2, 'profile');
    expect(profile.values.map((value) => value.profileChanged.xp_balance)).toEqual(['6', '9']);
    await waitUntil('live listening again', () => live.services.indexer.changes.listening);
    // What the loss logged; nothing else is expected of `live` from here on.
    expect(liveLog.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'notifications: connection lost',
    ]);
    liveLog.length = 0;
    profile.unsubscribe();
  });
});

describe('refuses', () => {
  it('a connection without a valid key: closed with 4401 and the reason', async () => {
    const missing = connect();
    expect(await missing.closed).toEqual({
      code: 4401,
      reason: 'Missing API key: send it in the connection_init payload as X-API-KEY',
    });
    const invalid = connect('not-a-key');
    expect(await invalid.closed).toEqual({ code: 4401, reason: 'Invalid API key' });
  });

  it(`more than ${PER_KEY} subscriptions of one key, until one ends`, async () => {
    const other = chain.wallets[2];
    const otherKey = await issueApiKey(writer.url, other);
    const connected = connect(otherKey);
    const query = `subscription { profileChanged(chain: "local") { xp_balance } }`;
    const held = Array.from({ length: PER_KEY }, () => subscribe(connected, query));
    for (const received of held) await pushed(received, 1, 'held');
    const open = await live.metrics!.registry.getSingleMetricAsString('laurel_subscriptions_open');
    expect(
      Number(/laurel_subscriptions_open\{field="profileChanged"\} (\d+)/.exec(open)?.[1]),
    ).toBeGreaterThanOrEqual(PER_KEY);
    const refused = subscribe(connected, query);
    await waitUntil('the refusal', () => refused.completed);
    expect(refused.values).toEqual([]);
    expect(refused.errors).toEqual([
      [
        {
          message: `Too many subscriptions: this API key holds ${PER_KEY} open here (SUBSCRIPTIONS_PER_KEY); complete one first`,
          extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', http_status: 429 },
        },
      ],
    ]);
    held[0].unsubscribe();
    const accepted = await waitUntil('a subscription accepted again', async () => {
      const again = subscribe(connected, query);
      await waitUntil('an answer', () => again.values.length > 0 || again.completed);
      if (again.values.length > 0) return again;
      return undefined;
    });
    expect(accepted.values).toEqual([{ profileChanged: { xp_balance: '0' } }]);
  });

  it(`a subscription over the wallet's request budget (${BUDGET} here): each one started costs one request`, async () => {
    const connected = connect(await issueApiKey(writer.url, chain.wallets[4]));
    const query = `subscription { profileChanged(chain: "local") { xp_balance } }`;
    for (let i = 0; i < BUDGET; i++) {
      const started = subscribe(connected, query);
      await pushed(started, 1, `subscription ${i + 1}`);
      expect(started.errors).toEqual([]);
      started.unsubscribe();
    }
    const refused = subscribe(connected, query);
    await waitUntil('the refusal', () => refused.completed);
    expect(refused.errors).toEqual([
      [
        {
          message: 'Too many requests',
          extensions: { code: 'RATE_LIMITED', http_status: 429, retry_after: expect.any(Number) },
        },
      ],
    ]);
  });

  it('queries, mutations, invalid arguments and variables, with errors in GraphQL’s shape', async () => {
    const connected = connect(await issueApiKey(writer.url, chain.wallets[3]));
    const query = subscribe(connected, '{ __typename }');
    const unknownChain = subscribe(
      connected,
      'subscription { profileChanged(chain: "nope") { xp_balance } }',
    );
    const unknownHash = subscribe(
      connected,
      `subscription { transactionStatus(hash: "0x${'ab'.repeat(32)}") { status } }`,
    );
    await waitUntil('the refusals', () => query.completed && unknownChain.completed && unknownHash.completed);
    expect(query.errors).toEqual([
      [
        {
          message: 'Only subscriptions run over WebSocket: send queries to POST /graphql',
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    ]);
    expect(unknownChain.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }),
    ]);
    expect(unknownHash.errors).toEqual([
      [expect.objectContaining({ extensions: expect.objectContaining({ code: 'TRANSACTION_NOT_FOUND' }) })],
    ]);
    // Variables that do not fit are refused before the subscription starts, as over HTTP.
    const byVariable = 'subscription ($c: String!) { profileChanged(chain: $c) { xp_balance } }';
    const wrongVariable = subscribe(connected, byVariable, { c: 5 });
    const missingVariable = subscribe(connected, byVariable);
    await waitUntil('the variables refused', () => wrongVariable.completed && missingVariable.completed);
    expect(wrongVariable.errors).toEqual([
      [
        expect.objectContaining({
          message: 'Variable "$c" got invalid value 5; String cannot represent a non string value: 5',
          extensions: { code: 'BAD_USER_INPUT' },
        }),
      ],
    ]);
    expect(missingVariable.errors).toEqual([
      [
        expect.objectContaining({
          message: 'Variable "$c" of required type "String!" was not provided.',
          extensions: { code: 'BAD_USER_INPUT' },
        }),
      ],
    ]);
  });
});

it('a stopping process closes its subscriptions with 1001 (going away), and logs no error', async () => {
  const connected = connect(ownerKey);
  const held = subscribe(connected, 'subscription { profileChanged(chain: "local") { xp_balance } }');
  await pushed(held, 1, 'held');
  const stopped = live.stop();
  expect(await connected.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
  await stopped;
  live = undefined as unknown as TestLaurel;
  expect(liveLog).toEqual([]);
});
