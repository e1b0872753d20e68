import { Wallet } from 'ethers';
import { issueApiKey } from '../helpers/auth';
import { startTestChain, type TestChain } from '../helpers/chain';
import { createTestDatabase } from '../helpers/database';
import { appFactoryInterface, appInterface } from '../../src/chain/contracts';
import { client, createApp, eventArg, type Client, type Receipt, type Unsigned } from '../helpers/flow';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { subscribe, subscriptionClient, type SubscriptionClient } from '../helpers/subscriptions';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { waitUntil } from '../helpers/wait';

/**
 * Read-only keys, key expiry and the transaction listing, on two Laurels sharing one database and
 * chain: `main` (every role), where keys are issued, and `other` (API only), which knows the keys
 * only from the database.
 */
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const READ_ONLY = 'This API key is read-only: it runs reads only; use a key with the full scope';
let chain: TestChain;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let main: TestLaurel;
let other: TestLaurel;
let receiver: WebhookReceiver;
let owner: Wallet;
let fullKey: string;
let readKey: string;
let owned: Client;
let appId: string;
let tokenId: string;
/** The owner's transactions, in the order they were sent. */
const sent: string[] = [];
const user = Wallet.createRandom().address;
const sockets: SubscriptionClient[] = [];

function connect(url: string, apiKey: string): SubscriptionClient {
  const socket = subscriptionClient(url, apiKey);
  sockets.push(socket);
  return socket;
}

/** Executes a build of the owner's (with its full key); notes its hash among the owner's transactions. */
async function execute(built: { status: number; body: Record<string, unknown> }): Promise<Receipt> {
  expect(built.status).toBe(200);
  const receipt = await owned.execute(built.body.unsignedTransaction as Unsigned);
  sent.push((receipt as Receipt & { hash: string }).hash);
  return receipt;
}

const rewardXP = { chain: 'local', action_id: 'play', receiver: user, amount: 5 };

beforeAll(async () => {
  chain = await startTestChain();
  database = await createTestDatabase();
  const shared = { url: database.url, drop: async () => undefined };
  main = await startTestLaurel({
    chain,
    database: shared,
    env: { INDEXER_POLL_INTERVAL_MS: '100', API_KEY_MAX_LIFETIME_SECONDS: '3600' },
  });
  other = await startTestLaurel({
    chain,
    database: shared,
    env: { LAUREL_ROLES: 'api', SUBSCRIPTION_PUSH_INTERVAL_MS: '100', API_KEY_MAX_LIFETIME_SECONDS: '3600' },
  });
  receiver = await startWebhookReceiver();
  owner = chain.wallets[1];
  fullKey = await issueApiKey(main.url, owner);
  readKey = await issueApiKey(main.url, owner, { scope: 'read' });
  owned = client(main.url, fullKey, owner);
  const app = await execute(await owned.post('/app/new', { chain: 'local', name: 'Readable' }));
  appId = eventArg(app.logs, appFactoryInterface, 'AppCreated', 'app');
  const token = await execute(
    await owned.post('/credit/new', {
      chain: 'local',
      app_id: appId,
      token_name: 'Gold',
      token_symbol: 'GLD',
      token_supply: 100,
      token_decimals: 2,
      token_is_point: false,
    }),
  );
  tokenId = eventArg(token.logs, appInterface, 'CreditTokenCreated', 'token');
  await execute(await owned.post('/reward/XP', { ...rewardXP, app_id: appId }));
  await waitUntil('the reward in the leaderboard', async () => {
    const board = await owned.get(`/leaderboard?chain=local&app_id=${appId}`);
    return (board.body as unknown as unknown[]).length === 1;
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.dispose()));
  await other?.stop();
  await main?.stop();
  await receiver?.stop();
  await database?.drop();
  await chain?.stop();
});

describe('a read-only key', () => {
  it('is refused builds, execute, webhook and key management over REST, 403 in each path’s shape', async () => {
    for (const laurel of [main, other]) {
      const reader = client(laurel.url, readKey);
      // POST /reward/XP answers refusals as zod's result / Shape A: {status:'failed', error}.
      expect(await reader.post('/reward/XP', { ...rewardXP, app_id: appId })).toMatchObject({
        status: 403,
        body: { status: 'failed', error: READ_ONLY },
      });
      // POST /reward/credit: Shape B.
      expect(
        await reader.post('/reward/credit', { ...rewardXP, token_id: tokenId, app_id: appId }),
      ).toMatchObject({
        status: 403,
        body: { success: false, error: { code: 'forbidden', message: READ_ONLY } },
      });
      // A real, reachable receiver: nothing is created, so it is never called.
      const webhook = await reader.post('/webhook', { url: receiver.url('/hook') });
      expect(webhook).toMatchObject({ status: 403, body: { status: 'failed', error: READ_ONLY } });
      const build = await owned.post('/app/new', { chain: 'local', name: 'Signed' });
      const signed = await owner.signTransaction(build.body.unsignedTransaction as Unsigned);
      expect(
        await request(laurel.url, 'POST', '/v1/transactions/execute', {
          apiKey: readKey,
          body: { chain: 'local', signed_transaction: signed },
        }),
      ).toMatchObject({ status: 403, body: { status: 'failed', error: READ_ONLY } });
      await request(main.url, 'DELETE', '/v1/transactions/reservations?chain=local', { apiKey: fullKey });
      const keys = await reader.get('/keys');
      const full = (keys.body.keys as { id: string; scope: string }[]).find((key) => key.scope === 'full')!;
      expect(await request(laurel.url, 'DELETE', `/v1/keys/${full.id}`, { apiKey: readKey })).toMatchObject({
        status: 403,
        body: { status: 'failed', error: READ_ONLY },
      });
    }
    expect(receiver.calls).toEqual([]);
    expect((await owned.get('/webhooks')).body).toEqual({ status: 'success', webhooks: [] });
    // The full key was not revoked.
    expect((await owned.get('/keys')).status).toBe(200);
  });

  it('reads profiles, leaderboards, balances, tokens and transaction status over REST', async () => {
    for (const laurel of [main, other]) {
      const reader = client(laurel.url, readKey);
      expect(await reader.get(`/leaderboard?chain=local&app_id=${appId}`)).toMatchObject({
        status: 200,
        body: [{ user, xp_rewarded: '5' }],
      });
      expect(await reader.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`)).toMatchObject({
        status: 200,
      });
      // A read sent as a POST.
      expect(
        await reader.post('/credit/balance', { chain: 'local', token_id: tokenId, user_id: owner.address }),
      ).toMatchObject({ status: 200, body: { balance_formatted: '100' } });
      expect(await reader.get(`/credit/tokens?chain=local&app_id=${appId}`)).toMatchObject({ status: 200 });
      expect(await reader.get(`/transactions/${sent[0]}`)).toMatchObject({
        status: 200,
        body: { status: 'success' },
      });
    }
  });

  it('lists the keys with their scope and expiry, never the key itself', async () => {
    const expiring = await issueApiKey(main.url, owner, { expires_in_seconds: 600 });
    const issuedAt = Date.now();
    const listed = await client(other.url, readKey).get('/keys');
    expect(listed.status).toBe(200);
    const keys = listed.body.keys as Record<string, unknown>[];
    expect(keys.map((key) => [key.prefix, key.scope])).toEqual([
      [fullKey.slice(0, 12), 'full'],
      [readKey.slice(0, 12), 'read'],
      [expiring.slice(0, 12), 'full'],
    ]);
    expect(keys.slice(0, 2).map((key) => key.expires_at)).toEqual([null, null]);
    const expiresAt = Date.parse(keys[2].expires_at as string);
    expect(keys[2].expires_at).toMatch(ISO);
    // Set by the database's clock, 600 s after the key was stored.
    expect(Math.abs(expiresAt - (issuedAt + 600_000))).toBeLessThan(30_000);
    expect(JSON.stringify(listed.body)).not.toContain(readKey);
    const viaGraphQL = await graphql<{
      apiKeys: { prefix: string; scope: string; expires_at: string | null }[];
    }>(main.url, '{ apiKeys { prefix scope expires_at } }', { apiKey: readKey });
    expect(viaGraphQL.body.data!.apiKeys).toEqual(
      keys.map((key) => ({ prefix: key.prefix, scope: key.scope, expires_at: key.expires_at })),
    );
  });

  it('is refused mutations over GraphQL (FORBIDDEN) and served queries', async () => {
    for (const laurel of [main, other]) {
      const refused = await graphql(
        laurel.url,
        'mutation ($app: String!, $user: String!) { rewardXP(chain: "local", app_id: $app, action_id: "play", receiver: $user, amount: "1") { unsignedTransaction { nonce } } }',
        { apiKey: readKey, variables: { app: appId, user } },
      );
      expect(refused.body.errors).toEqual([
        expect.objectContaining({
          message: READ_ONLY,
          extensions: expect.objectContaining({ code: 'FORBIDDEN', http_status: 403 }),
        }),
      ]);
      const webhook = await graphql(
        laurel.url,
        'mutation ($url: String!) { createWebhook(url: $url) { id } }',
        {
          apiKey: readKey,
          variables: { url: receiver.url('/hook') },
        },
      );
      expect(webhook.body.errors).toEqual([
        expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) }),
      ]);
      const served = await graphql<{ leaderboard: { user: string; xp_rewarded: string }[] }>(
        laurel.url,
        'query ($app: String!) { leaderboard(chain: "local", app_id: $app) { user xp_rewarded } }',
        { apiKey: readKey, variables: { app: appId } },
      );
      expect(served.body).toEqual({ data: { leaderboard: [{ user, xp_rewarded: '5' }] } });
    }
    expect(receiver.calls).toEqual([]);
  });

  it('is served a leaderboard over a WebSocket subscription, in a process that did not issue it', async () => {
    const socket = connect(other.url, readKey);
    await socket.connected;
    const board = subscribe<{ leaderboardChanged: { user: string; xp_rewarded: string }[] }>(
      socket,
      'subscription ($app: String!) { leaderboardChanged(chain: "local", app_id: $app) { user xp_rewarded } }',
      { app: appId },
    );
    await waitUntil('the leaderboard pushed', () => board.values.length > 0 || board.errors.length > 0);
    expect(board.errors).toEqual([]);
    expect(board.values[0]).toEqual({ leaderboardChanged: [{ user, xp_rewarded: '5' }] });
    // The next reward (built and sent with the full key) is pushed to the read-only subscriber.
    await execute(await owned.post('/reward/XP', { ...rewardXP, app_id: appId }));
    await waitUntil('the second reward pushed', () =>
      board.values.some((value) => value.leaderboardChanged[0]?.xp_rewarded === '10'),
    );
    board.unsubscribe();
  });
});

describe('an expiring key', () => {
  it('is refused by bounds it breaks at /key/verify, in the path’s shape', async () => {
    const wallet = Wallet.createRandom();
    const challenge = await request(main.url, 'POST', '/key/challenge', {
      body: { public_address: wallet.address },
    });
    const signature = await wallet.signMessage(challenge.body.challenge as string);
    const tooLong = await request(main.url, 'POST', '/key/verify', {
      body: { signature, public_address: wallet.address, expires_in_seconds: 3601 },
    });
    expect(tooLong).toMatchObject({
      status: 400,
      body: { error: { issues: [expect.objectContaining({ path: ['expires_in_seconds'] })] } },
    });
    expect((tooLong.body.error as { issues: { message: string }[] }).issues[0].message).toContain(
      'API_KEY_MAX_LIFETIME_SECONDS',
    );
    const badScope = await request(main.url, 'POST', '/key/verify', {
      body: { signature, public_address: wallet.address, scope: 'admin' },
    });
    expect(badScope).toMatchObject({
      status: 400,
      body: { error: { issues: [expect.objectContaining({ path: ['scope'] })] } },
    });
    // Neither consumed the challenge.
    const issued = await request(main.url, 'POST', '/key/verify', {
      body: { signature, public_address: wallet.address, expires_in_seconds: 3600, scope: 'read' },
    });
    expect(issued.status).toBe(200);
  });

  it('works until it expires, then answers 401 `API key expired` in every process and closes its WebSockets', async () => {
    const key = await issueApiKey(main.url, owner, { scope: 'read', expires_in_seconds: 4 });
    const keyed = client(other.url, key);
    const socket = connect(main.url, key);
    await socket.connected;
    expect((await keyed.get(`/leaderboard?chain=local&app_id=${appId}`)).status).toBe(200);
    // The open WebSocket is closed at the expiry, though it asks for nothing.
    expect(await socket.closed).toEqual({ code: 4401, reason: 'API key expired' });
    for (const laurel of [main, other]) {
      expect(await client(laurel.url, key).get(`/leaderboard?chain=local&app_id=${appId}`)).toEqual(
        expect.objectContaining({ status: 401, body: { status: 'failed', error: 'API key expired' } }),
      );
      // GraphQL goes on without an account, as for an unknown key, and says why.
      const viaGraphQL = await graphql(laurel.url, '{ apiKeys { id } }', { apiKey: key });
      expect(viaGraphQL.body.errors).toEqual([
        expect.objectContaining({
          message: 'API key expired: send a live key in the X-API-KEY header',
          extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
        }),
      ]);
    }
    // A new WebSocket with it is refused.
    const again = connect(other.url, key);
    expect(await again.closed).toEqual({ code: 4401, reason: 'API key expired' });
  });
});

describe('GET /v1/transactions', () => {
  interface Listed {
    total: number;
    page: number;
    page_size: number;
    data: { transactionHash: string; chain: string; from: string; status: string; sent_at: string }[];
  }
  const list = async (query: string, apiKey = readKey) => {
    const result = await request<Listed & { status: string }>(main.url, 'GET', `/v1/transactions${query}`, {
      apiKey,
    });
    expect(result.status).toBe(200);
    return result.body;
  };

  it('lists only the caller’s transactions, newest first, filtered and paged (REST and GraphQL)', async () => {
    // Another wallet's transaction is not listed.
    const stranger = chain.wallets[2];
    const strangerKey = await issueApiKey(main.url, stranger);
    await createApp(client(main.url, strangerKey, stranger), 'Elsewhere');

    const newestFirst = [...sent].reverse();
    const all = await list('');
    expect(all).toMatchObject({ status: 'success', total: sent.length, page: 1, page_size: 20 });
    expect(all.data.map((tx) => tx.transactionHash)).toEqual(newestFirst);
    expect(new Set(all.data.map((tx) => tx.from))).toEqual(new Set([owner.address]));
    const times = all.data.map((tx) => Date.parse(tx.sent_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const second = await list('?page=2&page_size=1');
    expect(second).toMatchObject({ total: sent.length, page: 2, page_size: 1 });
    expect(second.data.map((tx) => tx.transactionHash)).toEqual([newestFirst[1]]);
    expect((await list(`?page=${sent.length + 1}&page_size=1`)).data).toEqual([]);

    expect((await list('?status=success&chain=local')).total).toBe(sent.length);
    expect(await list('?status=pending')).toMatchObject({ total: 0, data: [] });
    expect((await list(`?sender=${owner.address.toLowerCase()}`)).total).toBe(sent.length);
    expect(await list(`?sender=${stranger.address}`)).toMatchObject({ total: 0, data: [] });
    const theirs = await list('', strangerKey);
    expect(theirs.total).toBe(1);
    expect(theirs.data[0].from).toBe(stranger.address);

    const unknownChain = await request(main.url, 'GET', '/v1/transactions?chain=nowhere', {
      apiKey: readKey,
    });
    expect(unknownChain.status).toBe(400);
    const badStatus = await request(main.url, 'GET', '/v1/transactions?status=lost', { apiKey: readKey });
    expect(badStatus).toMatchObject({ status: 400, body: { status: 'failed' } });

    const viaGraphQL = await graphql<{ transactions: Listed }>(
      other.url,
      '{ transactions(page: 1, page_size: 2, status: "success") { total page page_size data { transactionHash chain from } } }',
      { apiKey: readKey },
    );
    expect(viaGraphQL.body.data!.transactions).toEqual({
      total: sent.length,
      page: 1,
      page_size: 2,
      data: newestFirst
        .slice(0, 2)
        .map((hash) => ({ transactionHash: hash, chain: 'local', from: owner.address })),
    });
  });
});
