import { readFileSync } from 'node:fs';
import { createServer, Socket, type Server } from 'node:net';
import path from 'node:path';
import { Wallet } from 'ethers';
import WebSocket from 'ws';
import {
  executeSigned,
  Laurel,
  LaurelSubscriptionError,
  LaurelSubscriptions,
  signIn,
  type ConnectionStatus,
} from '../../packages/client/src/index';
import { CLIENT_GRAPHQL_TYPES_FILE, clientGraphQLTypesText } from '../../scripts/lib/client-graphql-types';
import { startTestChain, type TestChain } from '../helpers/chain';
import { createTestDatabase } from '../helpers/database';
import { client, createApp } from '../helpers/flow';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * The client's subscriptions against a real Laurel (real WebSockets, its real close codes): pushes
 * arrive; after Laurel restarts on the same port and database, or after the socket is cut, the client
 * reconnects and the pushes go on; a revoked key ends them with a clear error, without reconnecting.
 */
let chain: TestChain;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let server: TestLaurel;
let port: number;
let owner: Wallet;
let ownerClient: Laurel;
let appId: string;
const user = Wallet.createRandom().address;
const opened: LaurelSubscriptions[] = [];

function start(portNumber: number): Promise<TestLaurel> {
  return startTestLaurel({
    chain,
    database: { url: database.url, drop: async () => undefined },
    env: {
      PORT: String(portNumber),
      SUBSCRIPTION_PUSH_INTERVAL_MS: '100',
      INDEXER_POLL_INTERVAL_MS: '100',
    },
  });
}

/** A client of `url` under the owner's key, its statuses recorded; quick reconnection for the tests. */
function live(url: string, apiKey = ownerClient.apiKey, retry = { attempts: 20, initialDelayMs: 100 }) {
  const statuses: ConnectionStatus[] = [];
  const subscriptions = new LaurelSubscriptions(
    { url, apiKey },
    { webSocket: WebSocket, retry: { maxDelayMs: 500, ...retry }, onStatus: (s) => statuses.push(s) },
  );
  opened.push(subscriptions);
  return { subscriptions, statuses };
}

/** Rewards `amount` XP to `user` through the client: build, sign, execute and wait. */
async function reward(amount: number): Promise<void> {
  const { unsignedTransaction } = await ownerClient.call(
    ownerClient.api.POST('/v1/reward/XP', {
      body: { chain: 'local', app_id: appId, receiver: user, amount, action_id: 'quest' },
    }),
  );
  const signedTransaction = await owner.signTransaction(unsignedTransaction as Record<string, unknown>);
  const executed = await executeSigned(ownerClient, { chain: 'local', signedTransaction }, { wait: true });
  expect(executed).toMatchObject({ status: 'success' });
}

/** Records the XP balances `profileChanged` pushes for `user`, and how it ended. */
function watchProfile(subscriptions: LaurelSubscriptions) {
  const xp: string[] = [];
  const ended: { error?: LaurelSubscriptionError; complete?: boolean } = {};
  subscriptions.subscribe(
    'profileChanged',
    { chain: 'local', user_id: user, app_id: appId },
    { user_id: true, xp_balance: true, completed_actions: { name: true } },
    {
      next: (profile) => xp.push(profile.xp_balance),
      error: (error) => (ended.error = error),
      complete: () => (ended.complete = true),
    },
  );
  return { xp, ended };
}

beforeAll(async () => {
  chain = await startTestChain();
  database = await createTestDatabase();
  server = await start(0);
  port = Number(new URL(server.url).port);
  owner = chain.wallets[1]!;
  ownerClient = new Laurel({ url: server.url });
  await signIn(ownerClient, owner);
  appId = await createApp(client(server.url, ownerClient.apiKey, owner), 'Live client');
}, 120_000);

afterAll(async () => {
  await Promise.all(opened.map((subscriptions) => subscriptions.dispose()));
  await server?.stop();
  await database?.drop();
  await chain?.stop();
}, 60_000);

it('the generated types match schema.graphql (npm run schema:emit writes them)', () => {
  const root = path.resolve(__dirname, '../..');
  expect(readFileSync(path.join(root, CLIENT_GRAPHQL_TYPES_FILE), 'utf8')).toBe(
    clientGraphQLTypesText(readFileSync(path.join(root, 'schema.graphql'), 'utf8')),
  );
});

it('pushes the profile, then each change; after Laurel restarts on the same port it reconnects and goes on', async () => {
  const { subscriptions, statuses } = live(server.url);
  const { xp, ended } = watchProfile(subscriptions);
  const board: string[][] = [];
  const pages = subscriptions.iterate(
    'leaderboardChanged',
    { chain: 'local', app_id: appId, page_size: 5 },
    { user: true, xp_rewarded: true },
  );
  void (async () => {
    for await (const page of pages) board.push(page.map((entry) => `${entry.user}:${entry.xp_rewarded}`));
  })();
  await waitUntil('the first pushes', () => xp.length === 1 && board.length === 1);
  expect(xp).toEqual(['0']);

  await reward(5);
  await waitUntil('the reward pushed', () => xp.includes('5') && board.length >= 2);
  expect(board.at(-1)).toEqual([`${user}:5`]);

  // Laurel stops (closing with 1001) and another process starts on the same port and database.
  await server.stop();
  await waitUntil('the close seen', () => statuses.some((s) => s.state === 'closed' && s.code === 1001));
  server = await start(port);
  await waitUntil('reconnected', () => statuses.some((s) => s.state === 'connected' && s.reconnected));
  // Subscribed again: the current answer first, then the next change.
  await waitUntil('pushed again after reconnecting', () => xp.length >= 3);
  expect(xp.slice(2)).toEqual(['5']);
  await reward(2);
  await waitUntil('the next reward pushed', () => xp.includes('7') && board.at(-1)?.[0] === `${user}:7`);
  expect(ended).toEqual({});
  await pages.return?.();
}, 60_000);

it('reconnects and subscribes again when the socket is cut', async () => {
  // A TCP relay in front of Laurel whose connections the test cuts, as a lost network path does.
  const sockets = new Set<Socket>();
  const relay: Server = createServer((inbound) => {
    const outbound = new Socket();
    outbound.connect(port, '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  try {
    const relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
    const { subscriptions, statuses } = live(relayUrl);
    const { xp, ended } = watchProfile(subscriptions);
    await waitUntil('the first push', () => xp.length === 1);
    for (const socket of sockets) socket.destroy();
    await waitUntil('the cut seen', () => statuses.some((s) => s.state === 'closed' && s.code === 1006));
    await waitUntil('pushed again', () => xp.length === 2);
    expect(statuses.filter((s) => s.state === 'connected')).toEqual([
      { state: 'connected', reconnected: false },
      { state: 'connected', reconnected: true },
    ]);
    await reward(1);
    await waitUntil('the reward pushed', () => xp.length === 3);
    expect(xp).toEqual(['7', '7', '8']);
    expect(ended).toEqual({});
  } finally {
    relay.close();
    for (const socket of sockets) socket.destroy();
  }
}, 60_000);

it('a revoked key ends the subscriptions with a clear error, without reconnecting', async () => {
  const wallet = Wallet.createRandom();
  const reader = new Laurel({ url: server.url });
  await signIn(reader, wallet);
  const { subscriptions, statuses } = live(server.url, reader.apiKey);
  const { xp, ended } = watchProfile(subscriptions);
  await waitUntil('the first push', () => xp.length === 1);
  const { keys } = await reader.call(reader.api.GET('/v1/keys'));
  await reader.call(reader.api.DELETE('/v1/keys/{id}', { params: { path: { id: keys[0]!.id } } }));
  await waitUntil('the end', () => ended.error);
  expect(ended.error).toBeInstanceOf(LaurelSubscriptionError);
  expect(ended.error).toMatchObject({
    closeCode: 4401,
    message:
      'Laurel refused the API key (4401 API key revoked): sign in again for a new key (signIn, or `laurel key`)',
  });
  expect(statuses.filter((s) => s.state === 'connecting')).toHaveLength(1);
});

it('an unknown key, no key, and arguments Laurel refuses each end with what is wrong', async () => {
  const unknown = watchProfile(live(server.url, 'laurel_not_a_key').subscriptions);
  await waitUntil('the end', () => unknown.ended.error);
  expect(unknown.ended.error).toMatchObject({
    closeCode: 4401,
    message: expect.stringMatching(/^Laurel refused the API key \(4401 Invalid API key\)/),
  });

  const none = watchProfile(live(server.url, '').subscriptions);
  expect(none.ended.error?.message).toBe(
    'no API key: sign in first (signIn(laurel, wallet), or `laurel key` on the command line)',
  );

  const refused = live(server.url).subscriptions.iterate(
    'profileChanged',
    { chain: 'no-such-chain' },
    {
      xp_balance: true,
    },
  );
  const error = await refused.next().catch((e: unknown) => e);
  expect(error).toMatchObject({
    code: 'BAD_USER_INPUT',
    message: expect.stringContaining('(BAD_USER_INPUT)'),
  });
});

it('gives up after the attempts it is given when no Laurel answers', async () => {
  // Port 1, where nothing listens: a port freed a moment ago could be given to another test
  // file's server meanwhile (listen(0) only gives ports of the ephemeral range).
  const url = 'http://127.0.0.1:1';
  const { subscriptions, statuses } = live(url, ownerClient.apiKey, { attempts: 2, initialDelayMs: 20 });
  const { ended } = watchProfile(subscriptions);
  await waitUntil('the end', () => ended.error);
  expect(ended.error?.message).toBe(
    `no Laurel answers at ${url.replace('http', 'ws')}/graphql after 2 reconnection attempts (last: closed 1006)`,
  );
  expect(statuses.filter((s) => s.state === 'connecting')).toHaveLength(3);
});
