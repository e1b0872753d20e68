import { Wallet } from 'ethers';
import WebSocket from 'ws';
import { issueApiKey } from '../helpers/auth';
import { startTestChain, type TestChain } from '../helpers/chain';
import { createTestDatabase } from '../helpers/database';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import {
  subscribe,
  subscriptionClient,
  type Closed,
  type Received,
  type SubscriptionClient,
} from '../helpers/subscriptions';
import { waitUntil } from '../helpers/wait';

/**
 * WebSocket clients that do not play by the rules: a revoked key, bursts of subscribe messages,
 * refused messages sent on and on, too many sockets, sockets that never answer. Two Laurels share
 * one database (and chain): `a` runs everything, `b` serves the API only; what `b` learns of `a`'s
 * revocations it can only have heard through PostgreSQL.
 */
const PER_KEY = 20;
const SOCKETS_PER_KEY = 4;
const BUDGET = 100;
const PING_INTERVAL_MS = 1_500;
const INIT_TIMEOUT_MS = 500;
const PROFILE = 'subscription { profileChanged(chain: "local") { xp_balance } }';

let chain: TestChain;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestLaurel;
let b: TestLaurel;
const clients: SubscriptionClient[] = [];
const raw: WebSocket[] = [];

function connect(laurel: TestLaurel, apiKey: string): SubscriptionClient {
  const connected = subscriptionClient(laurel.url, apiKey);
  clients.push(connected);
  return connected;
}

/** A bare `ws` client of /graphql, speaking graphql-transport-ws by hand. */
function rawSocket(laurel: TestLaurel, options: { autoPong?: boolean } = {}) {
  const socket = new WebSocket(`${laurel.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', {
    autoPong: options.autoPong ?? true,
  });
  raw.push(socket);
  const messages: { type: string; id?: string; payload?: unknown }[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const closed = new Promise<Closed & { at: number }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: String(reason), at: Date.now() })),
  );
  const init = async (apiKey: string) => {
    await opened;
    socket.send(JSON.stringify({ type: 'connection_init', payload: { 'X-API-KEY': apiKey } }));
    await waitUntil('connection_ack', () => messages.some((message) => message.type === 'connection_ack'));
  };
  return { socket, messages, opened, closed, init };
}

/** An API key of a new wallet (its own request budget), issued by `a`. */
const newKey = () => issueApiKey(a.url, Wallet.createRandom());

/** The id of `apiKey` (GET /v1/keys of its wallet: its newest key). */
async function keyIdOf(apiKey: string): Promise<string> {
  const listed = await request<{ keys: { id: string }[] }>(b.url, 'GET', '/v1/keys', { apiKey });
  expect(listed.status).toBe(200);
  return listed.body.keys[listed.body.keys.length - 1].id;
}

const firstPush = <T>(received: Received<T>, what: string) =>
  waitUntil(`${what}: first push`, () => received.values.length > 0 || received.completed, 20_000);

beforeAll(async () => {
  chain = await startTestChain();
  database = await createTestDatabase();
  const shared = { url: database.url, drop: async () => undefined };
  a = await startTestLaurel({ chain, database: shared });
  b = await startTestLaurel({
    chain,
    database: shared,
    env: {
      LAUREL_ROLES: 'api',
      SUBSCRIPTIONS_PER_KEY: String(PER_KEY),
      WEBSOCKETS_PER_KEY: String(SOCKETS_PER_KEY),
      WEBSOCKET_PING_INTERVAL_MS: String(PING_INTERVAL_MS),
      WEBSOCKET_INIT_TIMEOUT_MS: String(INIT_TIMEOUT_MS),
      RATE_LIMIT_MAX_REQUESTS: String(BUDGET),
      RATE_LIMIT_WINDOW_SECONDS: '3600',
    },
  });
}, 120_000);

afterAll(async () => {
  for (const socket of raw) socket.terminate();
  await Promise.all(clients.map((connected) => connected.dispose()));
  await b?.stop();
  await a?.stop();
  await database?.drop();
  await chain?.stop();
}, 60_000);

describe('a revoked key', () => {
  it.each([
    ['DELETE /v1/keys/:id', 'REST'],
    ['the revokeApiKey mutation', 'GraphQL'],
  ])(
    'revoked through %s closes its WebSockets in the revoking process and in the other within a second (4401)',
    async (_how, transport) => {
      const wallet = Wallet.createRandom();
      const keep = await issueApiKey(a.url, wallet);
      const revoked = await issueApiKey(a.url, wallet);
      const id = await keyIdOf(revoked);
      const sockets = [connect(a, revoked), connect(b, revoked)];
      const held = sockets.map((connected) => subscribe(connected, PROFILE));
      for (const received of held) await firstPush(received, 'held');
      const other = connect(b, keep);
      await other.connected;

      const closedAt: number[] = [];
      for (const connected of sockets) void connected.closed.then(() => closedAt.push(Date.now()));
      const revokedAt = Date.now();
      if (transport === 'REST') {
        expect((await request(a.url, 'DELETE', `/v1/keys/${id}`, { apiKey: keep })).status).toBe(200);
      } else {
        const answer = await graphql(b.url, 'mutation ($id: ID!) { revokeApiKey(id: $id) { id } }', {
          apiKey: keep,
          variables: { id },
        });
        expect(answer.body).toEqual({ data: { revokeApiKey: { id } } });
      }
      for (const connected of sockets) {
        expect(await connected.closed).toEqual({ code: 4401, reason: 'API key revoked' });
      }
      expect(Math.max(...closedAt) - revokedAt).toBeLessThan(1_000);
      expect(held.map((received) => received.values.length)).toEqual([1, 1]);
      // The wallet's other key is untouched.
      const still = subscribe(other, PROFILE);
      await firstPush(still, 'the other key');
      expect(still.errors).toEqual([]);
    },
  );

  it('is refused at the next subscribe message even when no notification arrives (revoked by hand in the database)', async () => {
    const revoked = await newKey();
    const id = await keyIdOf(revoked);
    const connected = connect(b, revoked);
    await firstPush(subscribe(connected, PROFILE), 'held');
    await a.services.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}::uuid`;
    // Within the second a process may remember a valid key, a subscribe is still served; then refused.
    const refusal = await waitUntil('a refused subscribe', async () => {
      const attempt = subscribe(connected, PROFILE);
      await waitUntil('an answer', () => attempt.values.length > 0 || attempt.completed);
      if (attempt.values.length > 0) {
        attempt.unsubscribe();
        return undefined;
      }
      return attempt;
    });
    expect(refusal.values).toEqual([]);
    expect(await connected.closed).toEqual({ code: 4401, reason: 'API key revoked' });
  });
});

describe('the per-key subscription cap', () => {
  it(`holds under a burst of 70 subscribe messages over two sockets of one key: exactly ${PER_KEY} open, each message charged`, async () => {
    const apiKey = await newKey();
    const sockets = [connect(b, apiKey), connect(b, apiKey)];
    await Promise.all(sockets.map((connected) => connected.connected));
    const burst = Array.from({ length: 70 }, (_, i) => subscribe(sockets[i % 2], PROFILE));
    await waitUntil(
      'every subscribe answered',
      () => burst.every((received) => received.values.length > 0 || received.completed),
      20_000,
    );
    const opened = burst.filter((received) => received.values.length > 0);
    const refused = burst.filter((received) => received.values.length === 0);
    expect(opened).toHaveLength(PER_KEY);
    expect(opened.every((received) => received.errors.length === 0)).toBe(true);
    for (const received of refused) {
      expect(received.errors).toEqual([
        [
          {
            message: `Too many subscriptions: this API key holds ${PER_KEY} open here (SUBSCRIPTIONS_PER_KEY); complete one first`,
            extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', http_status: 429 },
          },
        ],
      ]);
    }
    // 70 of the wallet's budget are spent: what is left, then no more.
    for (let i = 0; i < BUDGET - 70; i++) {
      expect((await request(b.url, 'GET', '/v1/chains', { apiKey })).status).toBe(200);
    }
    expect((await request(b.url, 'GET', '/v1/chains', { apiKey })).status).toBe(429);
  });
});

describe('refused and invalid subscribe messages', () => {
  it('are charged to the wallet’s budget; over it they are refused, and a socket that goes on is closed with 4429', async () => {
    const apiKey = await newKey();
    // A malformed message: graphql-ws closes the socket (4400), and it is charged.
    const malformed = rawSocket(b);
    await malformed.init(apiKey);
    malformed.socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: 5 } }));
    expect(await malformed.closed).toMatchObject({ code: 4400, reason: 'Invalid message received' });

    const connected = connect(b, apiKey);
    const refusals = [
      subscribe(connected, '{ __typename }'),
      subscribe(connected, 'subscription { nope }'),
      subscribe(connected, 'subscription {'),
      ...Array.from({ length: BUDGET - 4 }, () => subscribe(connected, 'subscription { nope }')),
    ];
    await waitUntil('every refusal', () => refusals.every((received) => received.completed));
    expect(refusals.map((received) => received.values)).toEqual(refusals.map(() => []));
    expect(
      new Set(
        refusals.map(
          (received) => (received.errors[0] as { extensions: { code: string } }[])[0].extensions.code,
        ),
      ),
    ).toEqual(
      // Sent together: past the first 20 (each holds a slot until it is refused), over the cap.
      new Set(['BAD_REQUEST', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'TOO_MANY_SUBSCRIPTIONS']),
    );
    // Malformed 1 + refused 99: the budget is spent.
    expect((await request(b.url, 'GET', '/v1/keys', { apiKey })).status).toBe(429);

    const limited = subscribe(connected, PROFILE);
    await waitUntil('the refusal', () => limited.completed);
    expect(limited.errors).toEqual([
      [
        {
          message: 'Too many requests',
          extensions: { code: 'RATE_LIMITED', http_status: 429, retry_after: expect.any(Number) },
        },
      ],
    ]);
    // Told to wait and sending again: closed.
    subscribe(connected, PROFILE);
    expect(await connected.closed).toEqual({
      code: 4429,
      reason: expect.stringMatching(/^Too many requests: retry after \d+ s$/),
    });
  });
});

describe('WebSockets per key', () => {
  it(`at most ${SOCKETS_PER_KEY} of one key at once, even opened together; one more is closed with 4429 until one ends`, async () => {
    const apiKey = await newKey();
    const burst = Array.from({ length: 10 }, () => connect(b, apiKey));
    const outcomes = await Promise.all(
      burst.map((connected) =>
        Promise.race([
          connected.connected.then(() => 'connected' as const),
          connected.closed.then((closed) => closed),
        ]),
      ),
    );
    const open = burst.filter((_, i) => outcomes[i] === 'connected');
    expect(open).toHaveLength(SOCKETS_PER_KEY);
    expect(outcomes.filter((outcome) => outcome !== 'connected')).toEqual(
      Array.from({ length: 10 - SOCKETS_PER_KEY }, () => ({
        code: 4429,
        reason: `Too many WebSockets: this API key holds ${SOCKETS_PER_KEY} open here (WEBSOCKETS_PER_KEY)`,
      })),
    );
    await open[0].dispose();
    const again = await waitUntil('a WebSocket accepted again', async () => {
      const next = connect(b, apiKey);
      const outcome = await Promise.race([next.connected.then(() => true), next.closed.then(() => false)]);
      return outcome ? next : undefined;
    });
    await firstPush(subscribe(again, PROFILE), 'accepted');
  });
});

describe('idle sockets', () => {
  it(`one that never answers pings is cut within two ping intervals (${PING_INTERVAL_MS} ms); one that answers stays`, async () => {
    const apiKey = await newKey();
    const silent = rawSocket(b, { autoPong: false });
    const answering = rawSocket(b);
    await Promise.all([silent.init(apiKey), answering.init(apiKey)]);
    const since = Date.now();
    const closed = await silent.closed;
    expect(closed.code).toBe(1006);
    expect(closed.at - since).toBeLessThan(2 * PING_INTERVAL_MS + 1_000);
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
  });

  it(`one that never sends connection_init is closed with 4408 after ${INIT_TIMEOUT_MS} ms`, async () => {
    const silent = rawSocket(b);
    await silent.opened;
    const since = Date.now();
    const closed = await silent.closed;
    expect(closed).toMatchObject({ code: 4408, reason: 'Connection initialisation timeout' });
    expect(closed.at - since).toBeLessThan(INIT_TIMEOUT_MS + 1_000);
  });
});
