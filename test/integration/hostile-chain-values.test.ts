import type { ServerResponse } from 'node:http';
import {
  AbiCoder,
  concat,
  Contract,
  getAddress,
  keccak256,
  MaxUint256,
  parseEther,
  TypedDataEncoder,
  Wallet,
  type ContractTransactionResponse,
  type Interface,
} from 'ethers';
import type { Pool } from 'pg';
import {
  appFactoryInterface,
  appInterface,
  creditTokenInterface,
  encodeActionId,
} from '../../src/chain/contracts';
import { PERMIT_TYPES } from '../../src/modules/credit/credit.service';
import { jobs } from '../../src/jobs/jobs';
import { ChainRegistry } from '../../src/chain/registry';
import { ChainIndexer } from '../../src/indexer/chain-indexer';
import { topics } from '../../src/indexer/log-decoder';
import { ingestReceiptLogs, type ReceiptLogs } from '../../src/indexer/receipt-ingestion';
import { createLogger } from '../../src/logger';
import { chainConfigOf } from '../helpers/chain';
import { createTestDatabase, createTestPool } from '../helpers/database';
import { client, createApp, issueApiKeys, type Client } from '../helpers/flow';
import { runJobOnce } from '../helpers/jobs';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Anyone can call the open AppFactory, and an app's owner its App: names, symbols and base URIs
 * are whatever they write, NUL bytes and bytes that are not UTF-8 included. Here a hostile wallet
 * writes them with direct contract calls (raw calldata where ethers would refuse the string), never
 * through Laurel's builders, and the index must keep up with the chain: stored names are text with
 * U+FFFD in place of what PostgreSQL cannot store, cut to CHAIN_TEXT_MAX_BYTES (64 here), the bytes
 * kept beside them; what PostgreSQL still refuses is recorded as unindexable and passed. Badge
 * metadata comes from a real HTTPS host serving hostile documents.
 */
const TEXT_MAX_BYTES = 64;
const METADATA_MAX_BYTES = 4096;
const REFRESH_SECONDS = 3600;
const abi = AbiCoder.defaultAbiCoder();

let laurel: TestLaurel;
let metadataHost: WebhookReceiver;
let pool: Pool;
let good: Client;
let goodApp: string;
let goodOwner: Wallet;
let hostile: Wallet;
let hostileApi: Client;
let hostileKey: string;
const player = Wallet.createRandom().address;

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => Buffer.from(part)));

/**
 * Sends `method` with `args` from `wallet`, its `string` parameters given as raw bytes (the ABI
 * encodes both alike): what a direct caller can send and ethers would not encode from a string.
 */
async function sendRaw(wallet: Wallet, to: string, iface: Interface, method: string, args: unknown[]) {
  const fragment = iface.getFunction(method)!;
  const types = fragment.inputs.map((input) => (input.type === 'string' ? 'bytes' : input.type));
  const sent = await wallet.sendTransaction({
    to,
    data: fragment.selector + abi.encode(types, args).slice(2),
  });
  const receipt = await sent.wait();
  if (!receipt || receipt.status !== 1) throw new Error(`${method} failed`);
  return receipt;
}

/** The address in topic 1 of the receipt's first log with `topic0` (an app, token or badge created). */
function createdAddress(receipt: { logs: readonly { topics: readonly string[] }[] }, topic0: string): string {
  const log = receipt.logs.find((candidate) => candidate.topics[0] === topic0)!;
  return `0x${log.topics[1].slice(26)}`;
}

async function createAppDirectly(name: Uint8Array, from = hostile): Promise<string> {
  return createdAddress(await createAppReceipt(name, from), topics.appCreated).toLowerCase();
}

function createAppReceipt(name: Uint8Array, from = hostile) {
  return sendRaw(from, laurel.chain!.factory, appFactoryInterface, 'createApp', [name]);
}

/** Rewards XP with a direct App.rewardXP call: only the indexer (no receipt ingestion) puts it in. */
async function rewardXpDirectly(wallet: Wallet, app: string, user: string, amount: bigint, action: string) {
  const contract = new Contract(app, appInterface, wallet);
  const sent = (await contract.rewardXP(user, amount, encodeActionId(action))) as ContractTransactionResponse;
  const receipt = await sent.wait();
  if (!receipt) throw new Error('rewardXP has no receipt');
  return receipt;
}

type Ready = {
  status: string;
  warnings?: string[];
  checks: {
    indexer: {
      chain: string;
      cursor: number;
      unindexable: {
        events: number;
        latest: { block: number; transactionHash: string; logIndex: number; reason: string } | null;
      } | null;
    }[];
  };
};

const ready = () => request<Ready>(laurel.url, 'GET', '/ready');

/** Waits until the chain's indexer has passed `block`. */
async function indexedPast(block: number): Promise<Ready> {
  return waitUntil(
    `the indexer's cursor past block ${block}`,
    async () => {
      const { body } = await ready();
      return body.checks.indexer[0].cursor >= block && body;
    },
    20_000,
  );
}

async function goodXp(): Promise<string> {
  const profile = await good.get(`/profile?chain=local&user_id=${player}&app_id=${goodApp}`);
  expect(profile.status).toBe(200);
  return profile.body.xp_balance as string;
}

beforeAll(async () => {
  metadataHost = await startWebhookReceiver();
  laurel = await startTestLaurel({
    chain: true,
    env: {
      CHAIN_TEXT_MAX_BYTES: String(TEXT_MAX_BYTES),
      BADGE_METADATA_ALLOW_PRIVATE_NETWORKS: 'false',
      BADGE_METADATA_ALLOWED_ADDRESSES: '127.0.0.1',
      BADGE_METADATA_MAX_BYTES: String(METADATA_MAX_BYTES),
      BADGE_METADATA_RETRIES: '2',
      BADGE_METADATA_RETRY_BASE_MS: '100',
      BADGE_METADATA_REFRESH_SECONDS: String(REFRESH_SECONDS),
    },
  });
  pool = createTestPool(laurel.databaseUrl, 2);
  const wallets = laurel.chain!.wallets;
  goodOwner = wallets[1];
  hostile = wallets[2];
  const [goodKey] = await issueApiKeys(laurel.url, [goodOwner]);
  [hostileKey] = await issueApiKeys(laurel.url, [hostile]);
  good = client(laurel.url, goodKey, goodOwner);
  hostileApi = client(laurel.url, hostileKey, hostile);
  goodApp = await createApp(good, 'Good game');
});
afterAll(async () => {
  await pool?.end();
  await laurel?.stop();
  await metadataHost?.stop();
});

describe('hostile names written at the factory and the apps directly', () => {
  const nulName = bytes('Evil', [0], 'App');
  const invalidName = bytes('Bad', [0xff, 0xfe], 'Name', [0xc3]);
  const longName = bytes('L'.repeat(TEXT_MAX_BYTES - 1), '🥇', 'tail');
  let nulApp: string;
  let invalidApp: string;
  let longApp: string;

  it('are indexed with U+FFFD names, cut to CHAIN_TEXT_MAX_BYTES, and the index keeps up with the chain', async () => {
    nulApp = await createAppDirectly(nulName);
    invalidApp = await createAppDirectly(invalidName);
    longApp = await createAppDirectly(longName);
    // Another app's reward, in a later block, is indexed (never through a receipt: a direct call).
    const reward = await rewardXpDirectly(goodOwner, goodApp, player, parseEther('5'), 'play');
    await indexedPast(reward.blockNumber);
    await waitUntil('the good app’s reward in its profile', async () => (await goodXp()) === '5', 10_000);

    const listed = await hostileApi.get('/apps?chain=local');
    expect(listed.status).toBe(200);
    const names = Object.fromEntries(
      (listed.body.apps as { id: string; name: string }[]).map((app) => [app.id.toLowerCase(), app.name]),
    );
    expect(names).toEqual({
      [nulApp]: 'Evil\uFFFDApp',
      [invalidApp]: 'Bad\uFFFD\uFFFDName\uFFFD',
      [longApp]: 'L'.repeat(TEXT_MAX_BYTES - 1),
    });
    // GraphQL answers the same names.
    const viaGraphql = await graphql<{ apps: { id: string; name: string }[] }>(
      laurel.url,
      'query { apps(chain: "local") { id name } }',
      { apiKey: hostileKey },
    );
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data!.apps.map((app) => app.name).sort()).toEqual(Object.values(names).sort());

    // The chain's bytes are kept beside a name stored altered, and only then.
    const { rows } = await pool.query<{ address: string; name_raw: Buffer | null }>(
      'SELECT lower(address) AS address, name_raw FROM indexed_apps',
    );
    const raw = Object.fromEntries(rows.map((row) => [row.address, row.name_raw]));
    expect(raw).toEqual({
      [goodApp.toLowerCase()]: null,
      [nulApp]: nulName,
      [invalidApp]: invalidName,
      [longApp]: longName,
    });
    // Nothing was passed: every event was written.
    const { body } = await ready();
    expect(body).toMatchObject({ status: 'ready', checks: { indexer: [{ unindexable: { events: 0 } }] } });
    expect(body.warnings).toBeUndefined();
  });

  it('tokens and badges with hostile names and base URIs are listed sanitised; rewards are built against them; an altered base URI is not fetched', async () => {
    const tokenName = bytes('Coin', [0xe2, 0x82]);
    const symbol = bytes('C', [0]);
    const badgeName = bytes([0xf0, 0x28, 0x8c, 0x28], 'Badge');
    const nulUriPath = '/meta/nul-uri.json';
    const badgeUri = bytes(metadataHost.url(nulUriPath), [0]);
    const tokenReceipt = await sendRaw(hostile, nulApp, appInterface, 'createCreditToken', [
      tokenName,
      symbol,
      6,
      1_000_000n,
      false,
    ]);
    const token = createdAddress(tokenReceipt, topics.creditTokenCreated);
    const badgeReceipt = await sendRaw(hostile, nulApp, appInterface, 'createBadge', [badgeName, badgeUri]);
    const badge = createdAddress(badgeReceipt, topics.badgeCreated);
    await indexedPast(badgeReceipt.blockNumber);

    const tokens = await hostileApi.get(`/credit/tokens?chain=local&app_id=${nulApp}`);
    expect(tokens.status).toBe(200);
    expect(tokens.body.tokens).toEqual([
      {
        id: expect.stringMatching(new RegExp(token, 'i')),
        name: 'Coin\uFFFD',
        symbol: 'C\uFFFD',
        decimals: 6,
        is_point: false,
      },
    ]);
    const badges = await hostileApi.get(`/badges?chain=local&app_id=${nulApp}`);
    expect(badges.status).toBe(200);
    const sanitisedUri = `${metadataHost.url(nulUriPath)}\uFFFD`;
    expect(badges.body.badges).toEqual([
      {
        id: expect.stringMatching(new RegExp(badge, 'i')),
        name: '\uFFFD(\uFFFD(Badge',
        metadataURI: sanitisedUri,
        metadata: null,
        holders: 0,
      },
    ]);

    // Builders read the same names from the chain's views: by name, as listed.
    const badgeReward = await hostileApi.post('/reward/badge', {
      chain: 'local',
      app_id: nulApp,
      receiver: player,
      badge_name: '\uFFFD(\uFFFD(Badge',
      amount: 1,
      action_id: 'collect',
    });
    expect(badgeReward.status).toBe(200);
    const creditReward = await hostileApi.post('/reward/credit', {
      chain: 'local',
      app_id: nulApp,
      receiver: player,
      token_address: token,
      amount: 1,
      mint: true,
      action_id: 'pay',
    });
    expect(creditReward.status).toBe(200);
    // Permit data on the token's own domain: the separator hashes the name's bytes, not their text.
    const permit = await hostileApi.post('/credit/permit-data', {
      chain: 'local',
      token_id: token,
      holder_address: hostile.address,
      receiver_address: player,
      amount: 1,
    });
    expect(permit.status).toBe(200);
    const tokenContract = new Contract(token, creditTokenInterface, laurel.chain!.provider);
    const separator = (await tokenContract.DOMAIN_SEPARATOR()) as string;
    const permitData = permit.body.permitData as Record<string, unknown>;
    expect(permitData).toMatchObject({
      domainSeparator: separator,
      domain: { name: 'Coin\uFFFD', version: '1', chainId: 31337, verifyingContract: getAddress(token) },
    });
    const structHash = TypedDataEncoder.from(PERMIT_TYPES).hash({
      owner: hostile.address,
      spender: player,
      value: 1_000_000n,
      nonce: 0n,
      deadline: permitData.deadline as number,
    });
    expect(permitData.hashToSign).toBe(keccak256(concat(['0x1901', separator, structHash])));
    await hostileApi.execute(badgeReward.body.unsignedTransaction as Record<string, unknown>);
    const profile = await waitUntil(
      'the badge in the player’s profile',
      async () => {
        const answer = await hostileApi.get(`/profile?chain=local&user_id=${player}&app_id=${nulApp}`);
        expect(answer.status).toBe(200);
        return (answer.body.collected_badges as unknown[]).length > 0 && answer.body;
      },
      10_000,
    );
    expect(profile.collected_badges).toEqual([
      expect.objectContaining({ name: '\uFFFD(\uFFFD(Badge', metadataURI: sanitisedUri, metadata: null }),
    ]);
    expect(profile.credit_balances).toEqual([
      expect.objectContaining({ token_name: 'Coin\uFFFD', token_symbol: 'C\uFFFD' }),
    ]);
    // The URI stored is not the chain's: no row to fetch, and no call to the host.
    const { rows } = await pool.query('SELECT 1 FROM badge_metadata WHERE uri LIKE $1', [
      `${metadataHost.url(nulUriPath)}%`,
    ]);
    expect(rows).toHaveLength(0);
    expect(metadataHost.calls.filter((call) => call.path.startsWith(nulUriPath))).toHaveLength(0);
  });

  it('an event PostgreSQL still refuses is recorded as unindexable and passed: its neighbours and later blocks are indexed, the metric and /ready name it, no read answers 500', async () => {
    // Nine apps each reward the largest uint256 of XP to one victim: each app's sum fits, the sum of
    // all apps' XP (numeric(78,0)) does not past the eighth.
    const victim = Wallet.createRandom().address;
    const rewards: { blockNumber: number; hash: string }[] = [];
    const apps: string[] = [];
    for (let i = 0; i < 9; i += 1) {
      const app = await createAppDirectly(bytes(`Max ${i}`));
      apps.push(app);
      rewards.push(await rewardXpDirectly(hostile, app, victim, MaxUint256, 'max'));
    }
    const later = await rewardXpDirectly(goodOwner, goodApp, player, parseEther('1'), 'play');
    const body = await indexedPast(later.blockNumber);
    await waitUntil(
      'the later reward in the good app’s profile',
      async () => (await goodXp()) === '6',
      10_000,
    );

    const { rows } = await pool.query<{
      block_number: string;
      transaction_hash: string;
      address: string;
      reason: string;
      topics: string[];
      data: Buffer;
    }>('SELECT block_number, transaction_hash, address, reason, topics, data FROM unindexable_events');
    const last = rewards[8];
    expect(rows).toEqual([
      {
        block_number: String(last.blockNumber),
        transaction_hash: last.hash,
        address: expect.stringMatching(new RegExp(`^${apps[8]}$`, 'i')),
        reason: expect.stringMatching(/^refused by the database: numeric field overflow/),
        topics: [topics.rewarded, expect.any(String), expect.any(String), expect.any(String)],
        data: Buffer.from(
          abi.encode(['uint8', 'uint256', 'bytes32'], [0, MaxUint256, encodeActionId('max')]).slice(2),
          'hex',
        ),
      },
    ]);
    // The eight rewards before it are in, in the same range or not.
    const actions = await pool.query('SELECT 1 FROM completed_actions WHERE user_address = $1', [victim]);
    expect(actions.rows).toHaveLength(8);

    // A warning, not a failure: the index goes on without the event.
    expect(body.status).toBe('ready');
    expect(body.warnings).toEqual(['indexer local: 1 unindexable events']);
    expect(body.checks.indexer[0].unindexable).toEqual({
      events: 1,
      latest: {
        block: last.blockNumber,
        transactionHash: last.hash,
        logIndex: expect.any(Number),
        reason: rows[0].reason,
      },
    });
    const metrics = await (await fetch(`${laurel.url}/metrics`)).text();
    expect(metrics).toMatch(/^laurel_indexer_unindexable_events_total\{chain="local"\} 1$/m);

    // Reads of the victim and of the huge sums answer.
    const victimProfile = await good.get(`/profile?chain=local&user_id=${victim}`);
    expect(victimProfile.status).toBe(200);
    const board = await good.get('/leaderboard?chain=local');
    expect(board.status).toBe(200);

    // Kept INDEXER_UNINDEXABLE_RETENTION_DAYS (30) days, then pruned by maintenance__prune.
    await runJobOnce(laurel, jobs.prune, {});
    expect((await pool.query('SELECT 1 FROM unindexable_events')).rows).toHaveLength(1);
    await pool.query(`UPDATE unindexable_events SET recorded_at = now() - interval '31 days'`);
    await runJobOnce(laurel, jobs.prune, {});
    expect((await pool.query('SELECT 1 FROM unindexable_events')).rows).toHaveLength(0);
  });
});

describe('receipts ingested together (execute-and-wait of several accounts)', () => {
  it('one receipt whose event PostgreSQL refuses fails none of the others; the indexer records it when it reaches it', async () => {
    // An index of its own, ahead of which receipts are ingested, then an indexer of its own.
    const database = await createTestDatabase();
    const ownPool = createTestPool(database.url, 4);
    const chain = new ChainRegistry([], 10_000).add(chainConfigOf(laurel.chain!, { name: 'receipts' }));
    const startBlock = (await laurel.chain!.provider.getBlockNumber()) + 1;
    const indexer = new ChainIndexer({
      chain,
      pool: ownPool,
      log: createLogger('silent'),
      pollIntervalMs: 20,
      maxBlockRange: 50,
      startBlock,
      text: { maxBytes: TEXT_MAX_BYTES, rawMaxBytes: 1024 },
    });
    try {
      const victim = Wallet.createRandom().address;
      const receipts: ReceiptLogs[] = [];
      const maxRewards: { hash: string }[] = [];
      for (let i = 0; i < 9; i += 1) {
        const created = await createAppReceipt(bytes(`Batch \0${i}`));
        receipts.push(created);
        const reward = await rewardXpDirectly(
          hostile,
          createdAddress(created, topics.appCreated),
          victim,
          MaxUint256,
          'max',
        );
        maxRewards.push(reward);
        receipts.push(reward);
      }
      const neighbour = await createAppReceipt(bytes('Neighbour'), goodOwner);
      const neighbourReward = await rewardXpDirectly(
        goodOwner,
        createdAddress(neighbour, topics.appCreated),
        player,
        parseEther('2'),
        'neighbour',
      );
      const ingested = await ingestReceiptLogs(
        ownPool,
        chain,
        [...receipts, neighbour, neighbourReward],
        startBlock,
      );
      // Every event but the ninth maximal reward: 10 apps, 8 + 1 rewards.
      expect(ingested.events).toBe(19);
      const actions = await ownPool.query<{ user_address: string; n: number }>(
        'SELECT user_address, count(*)::int AS n FROM completed_actions GROUP BY 1 ORDER BY 2',
      );
      expect(actions.rows).toEqual([
        { user_address: player, n: 1 },
        { user_address: victim, n: 8 },
      ]);
      const names = await ownPool.query<{ name: string }>(
        `SELECT name FROM indexed_apps WHERE name LIKE 'Batch%'`,
      );
      expect(names.rows.map((row) => row.name).sort()).toEqual(
        Array.from({ length: 9 }, (_, i) => `Batch \uFFFD${i}`),
      );

      // The indexer finds the rest marked as ingested, and the refused one unmarked: it records it.
      indexer.start();
      await waitUntil(
        'the indexer past the batch',
        async () => indexer.status().cursor >= neighbourReward.blockNumber,
      );
      const unindexable = await ownPool.query<{ transaction_hash: string }>(
        'SELECT transaction_hash FROM unindexable_events',
      );
      expect(unindexable.rows).toEqual([{ transaction_hash: maxRewards[8].hash }]);
      expect(indexer.status().unindexable).toMatchObject({
        events: 1,
        latest: { transactionHash: maxRewards[8].hash },
      });
      const counted = await ownPool.query('SELECT 1 FROM completed_actions');
      expect(counted.rows).toHaveLength(9);
    } finally {
      await indexer.stop();
      await ownPool.end();
      await database.drop();
    }
  });
});

describe('badge metadata hosts serving hostile documents', () => {
  const send = (body: Buffer | string) => (_call: unknown, response: ServerResponse) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  const documents: [string, Buffer | string, { document: unknown; error: RegExp | null }][] = [
    ['/meta/nul-escape.json', '{"name":"a\\u0000b"}', { document: null, error: /NUL character/ }],
    // The parser's message quotes the body, NUL and all: stored with U+FFFD.
    [
      '/meta/nul-raw.json',
      bytes([0], '{"name":1}'),
      { document: null, error: /^the document is not JSON: .*\uFFFD/ },
    ],
    ['/meta/surrogate.json', '{"name":"\\udc00x"}', { document: null, error: /unpaired surrogate/ }],
    [
      '/meta/invalid-utf8.json',
      bytes('{"name":"Gold', [0xff, 0xc0], '"}'),
      { document: { name: 'Gold\uFFFD\uFFFD' }, error: null },
    ],
    [
      '/meta/huge.json',
      JSON.stringify({ pad: 'x'.repeat(METADATA_MAX_BYTES * 4) }),
      { document: null, error: /larger than/ },
    ],
    [
      '/meta/deep.json',
      `${'['.repeat(2000)}${']'.repeat(2000)}`,
      { document: null, error: /not a JSON object/ },
    ],
    [
      '/meta/deep-object.json',
      `${'{"a":'.repeat(500)}1${'}'.repeat(500)}`,
      { document: null, error: /nested more than/ },
    ],
  ];

  it('are stored safely: refused with their reason or kept with U+FFFD, never retried as a failed job, never a 500', async () => {
    const app = await createAppDirectly(bytes('Metadata'));
    const badges = new Map<string, string>();
    for (const [path, body] of documents) {
      metadataHost.route(path, send(body));
      const receipt = await sendRaw(hostile, app, appInterface, 'createBadge', [
        bytes(path),
        bytes(metadataHost.url(path)),
      ]);
      badges.set(path, createdAddress(receipt, topics.badgeCreated));
    }
    for (const [path, , expected] of documents) {
      const uri = metadataHost.url(path);
      const row = await waitUntil(
        `the first attempt at ${path} stored`,
        async () => {
          const { rows } = await pool.query<{
            document: unknown;
            error: string | null;
            failed_attempts: number;
          }>(
            'SELECT document, error, failed_attempts FROM badge_metadata WHERE uri = $1 AND attempted_at IS NOT NULL',
            [uri],
          );
          return rows[0] ?? false;
        },
        15_000,
      );
      expect({ path, document: row.document, error: row.error }).toEqual({
        path,
        document: expected.document,
        error: expected.error ? expect.stringMatching(expected.error) : null,
      });
      if (expected.error) expect(row.failed_attempts).toBe(1);
    }
    // No fetch job failed (one that did would be retried): each URI's next job is its refresh.
    const failed = await pool.query(
      `SELECT key, last_error FROM graphile_worker.jobs WHERE task_identifier = 'badge_metadata__fetch' AND last_error IS NOT NULL`,
    );
    expect(failed.rows).toEqual([]);
    for (const [path] of documents)
      expect(metadataHost.calls.filter((call) => call.path === path)).toHaveLength(1);

    const listed = await hostileApi.get(`/badges?chain=local&app_id=${app}`);
    expect(listed.status).toBe(200);
    const metadata = Object.fromEntries(
      (listed.body.badges as { name: string; metadata: unknown }[]).map((badge) => [
        badge.name,
        badge.metadata,
      ]),
    );
    expect(metadata).toEqual(Object.fromEntries(documents.map(([path, , { document }]) => [path, document])));
  });
});
