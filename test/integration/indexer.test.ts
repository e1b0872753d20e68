import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract, Wallet, type ContractTransactionResponse } from 'ethers';
import type { Pool } from 'pg';
import { appFactoryInterface, appInterface, encodeActionId } from '../../src/chain/contracts';
import { receiptBlockTime } from '../../src/chain/pooled-provider';
import { ChainRegistry, type Chain } from '../../src/chain/registry';
import { startAnvil } from '../../src/embedded/anvil';
import { ChainIndexer } from '../../src/indexer/chain-indexer';
import { BlockTimesByHash } from '../../src/indexer/block-times';
import { ingestReceiptLogs } from '../../src/indexer/receipt-ingestion';
import { ALL_XP_TOKEN } from '../../src/indexer/index-writer';
import { createLogger } from '../../src/logger';
import { chainConfigOf, dumpedChainState, mined, startTestChain, type TestChain } from '../helpers/chain';
import { createTestDatabase, createTestPool } from '../helpers/database';
import { client, createApp, eventArg, issueApiKeys, type Client, type Unsigned } from '../helpers/flow';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

const XP = 10n ** 18n;

async function cursorOf(pool: Pool, chainId: number): Promise<number> {
  const { rows } = await pool.query<{ block_number: string }>(
    'SELECT block_number FROM indexer_cursors WHERE chain_id = $1',
    [chainId],
  );
  return rows[0] ? Number(rows[0].block_number) : -1;
}

/** Waits until the index holds every block up to the chain's current head minus `depth`. */
async function caughtUp(pool: Pool, chain: { provider: { getBlockNumber(): Promise<number> } }, depth = 0) {
  const target = (await chain.provider.getBlockNumber()) - depth;
  await waitUntil(`the index to reach block ${target}`, async () => (await cursorOf(pool, 31337)) >= target);
}

describe('the indexer of a Laurel server, fed by Laurel’s own builders', () => {
  let laurel: TestLaurel;
  let pool: Pool;
  let api: Client;
  let owner: Wallet;
  let operator: Wallet;
  let appId: string;
  let badge: string;
  let credit: string;
  let points: string;
  let xpToken: string;
  const alice = Wallet.createRandom().address;
  const bob = Wallet.createRandom().address;
  const txHashes: string[] = [];

  const build = async (path: string, body: Record<string, unknown>) => {
    const built = await api.post(path, { chain: 'local', app_id: appId, ...body });
    expect(built).toMatchObject({ status: 200 });
    const receipt = (await api.execute(built.body.unsignedTransaction as Unsigned)) as unknown as {
      hash: string;
      logs: { topics: string[]; data: string }[];
    };
    txHashes.push(receipt.hash);
    return receipt;
  };

  beforeAll(async () => {
    laurel = await startTestLaurel({ chain: true, env: { INDEXER_POLL_INTERVAL_MS: '50' } });
    pool = createTestPool(laurel.databaseUrl, 2);
    [, owner, operator] = laurel.chain!.wallets;
    const [ownerKey] = await issueApiKeys(laurel.url, [owner]);
    api = client(laurel.url, ownerKey, owner);

    appId = await createApp(api, 'Indexed');
    const badgeReceipt = await build('/badge/new', { badge_name: 'Gold', base_uri: 'ipfs://gold/' });
    badge = eventArg(badgeReceipt.logs, appInterface, 'BadgeCreated', 'badge');
    const creditReceipt = await build('/credit/new', {
      token_name: 'Credit',
      token_symbol: 'CRD',
      token_supply: 100,
      token_decimals: 6,
      token_is_point: false,
    });
    credit = eventArg(creditReceipt.logs, appInterface, 'CreditTokenCreated', 'token');
    const pointReceipt = await build('/credit/new', {
      token_name: 'Points',
      token_symbol: 'PTS',
      token_supply: 0,
      token_decimals: 0,
      token_is_point: true,
    });
    points = eventArg(pointReceipt.logs, appInterface, 'CreditTokenCreated', 'token');
    await build('/reward/XP', { action_id: 'daily-login', receiver: alice, amount: 1.5 });
    await build('/reward/XP', { action_id: 'quest', receiver: bob, amount: 2 });
    await build('/reward/XP', { action_id: 'quest', receiver: alice, amount: 0.25 });
    await build('/reward/badge', { action_id: 'first-win', receiver: alice, badge_id: badge, amount: 2 });
    await build('/reward/credit', {
      action_id: 'referral',
      receiver: alice,
      token_address: credit,
      amount: 2.5,
      mint: true,
    });
    await build('/reward/point', { action_id: 'streak', receiver: bob, token_address: points, amount: 3 });
    const app = new Contract(appId, appInterface, owner);
    await mined(app.addOperator(operator.address) as Promise<ContractTransactionResponse>);
    xpToken = (await app.xpToken()) as string;
    await caughtUp(pool, laurel.chain!);
  });
  afterAll(async () => {
    await pool?.end();
    await laurel?.stop();
  });

  it('discovers the app from the factory, with its operators, XP token, credit/point tokens and badges', async () => {
    const apps = await pool.query('SELECT address, owner, name, xp_token FROM indexed_apps');
    expect(apps.rows).toEqual([{ address: appId, owner: owner.address, name: 'Indexed', xp_token: xpToken }]);
    const operators = await pool.query('SELECT app_address, operator FROM indexed_app_operators');
    expect(operators.rows).toEqual([{ app_address: appId, operator: operator.address }]);
    const tokens = await pool.query(
      'SELECT address, app_address, kind, name, symbol, decimals FROM indexed_tokens ORDER BY kind, name',
    );
    expect(tokens.rows).toEqual([
      { address: xpToken, app_address: appId, kind: 'xp', name: 'Indexed', symbol: 'XP', decimals: 18 },
      { address: credit, app_address: appId, kind: 'credit', name: 'Credit', symbol: 'CRD', decimals: 6 },
      { address: points, app_address: appId, kind: 'point', name: 'Points', symbol: 'PTS', decimals: 0 },
    ]);
    const badges = await pool.query('SELECT address, app_address, name, base_uri FROM indexed_badges');
    expect(badges.rows).toEqual([
      { address: badge, app_address: appId, name: 'Gold', base_uri: 'ipfs://gold/' },
    ]);
  });

  it('keeps ERC-20 balances (XP, credit with its initial supply, points) and badge ownership', async () => {
    const balances = await pool.query(
      'SELECT token_address, holder, balance::text FROM token_balances ORDER BY token_address, holder',
    );
    const expected = [
      { token_address: xpToken, holder: alice, balance: String((XP * 175n) / 100n) },
      { token_address: xpToken, holder: bob, balance: String(2n * XP) },
      { token_address: credit, holder: alice, balance: '2500000' },
      { token_address: credit, holder: owner.address, balance: '100000000' },
      { token_address: points, holder: bob, balance: '3' },
    ];
    const order = (rows: { token_address: string; holder: string }[]) =>
      [...rows].sort((a, b) => (a.token_address + a.holder).localeCompare(b.token_address + b.holder));
    expect(order(balances.rows)).toEqual(order(expected));
    const holdings = await pool.query('SELECT badge_address, holder, count::int FROM badge_holdings');
    expect(holdings.rows).toEqual([{ badge_address: badge, holder: alice, count: 2 }]);
  });

  it('writes one completed action per Rewarded event, with block time, transaction and log index', async () => {
    const { rows } = await pool.query(
      `SELECT app_address, user_address, token_address, kind, action_name, amount::text,
              extract(epoch FROM block_time)::int AS time, transaction_hash, log_index, block_number::int
       FROM completed_actions ORDER BY block_number`,
    );
    expect(rows.map((row) => [row.user_address, row.kind, row.action_name, row.amount])).toEqual([
      [alice, 'xp', 'daily-login', String((XP * 15n) / 10n)],
      [bob, 'xp', 'quest', String(2n * XP)],
      [alice, 'xp', 'quest', String(XP / 4n)],
      [alice, 'badge', 'first-win', '2'],
      [alice, 'credit_mint', 'referral', '2500000'],
      [bob, 'point', 'streak', '3'],
    ]);
    const rewardHashes = txHashes.slice(-6);
    for (const [i, row] of rows.entries()) {
      expect(row.app_address).toBe(appId);
      expect(row.transaction_hash).toBe(rewardHashes[i]);
      const block = await laurel.chain!.provider.getBlock(row.block_number as number);
      expect(row.time).toBe(block!.timestamp);
      expect(row.log_index).toEqual(expect.any(Number));
    }
  });

  it('sums rewards per token and user, and XP across apps under the zero address', async () => {
    const { rows } = await pool.query(
      `SELECT token_address, user_address, amount::text FROM reward_totals
       WHERE token_address IN ($1, $2) ORDER BY token_address, user_address`,
      [xpToken, ALL_XP_TOKEN],
    );
    const sorted = [alice, bob].sort();
    const amount = (user: string) => String(user === alice ? (XP * 175n) / 100n : 2n * XP);
    expect(rows).toEqual([
      ...sorted.map((user) => ({ token_address: ALL_XP_TOKEN, user_address: user, amount: amount(user) })),
      ...sorted.map((user) => ({ token_address: xpToken, user_address: user, amount: amount(user) })),
    ]);
    const daily = await pool.query(
      'SELECT sum(amount)::text AS total FROM reward_daily_totals WHERE token_address = $1',
      [ALL_XP_TOKEN],
    );
    expect(daily.rows[0].total).toBe(String((XP * 375n) / 100n));
  });

  it('reports each chain’s lag behind the head in /ready', async () => {
    const ready = await request(laurel.url, 'GET', '/ready');
    expect(ready.status).toBe(200);
    const checks = ready.body.checks as { indexer: unknown[] };
    expect(checks.indexer).toEqual([
      {
        chain: 'local',
        active: true,
        cursor: expect.any(Number),
        cursorTime: expect.any(Number),
        head: expect.any(Number),
        lag: expect.any(Number),
        finalized: expect.any(Number),
        fork: null,
        unindexable: { events: 0, latest: null },
      },
    ]);
  });

  it('takes a reward’s block time from the node’s receipt in execute-and-wait: no header is read for it', async () => {
    const chain = laurel.services.chains.list()[0]!;
    const send = jest.spyOn(chain.provider, 'send');
    try {
      const receipt = await build('/reward/XP', {
        action_id: 'stamped',
        receiver: Wallet.createRandom().address,
        amount: 1,
      });
      const asked = send.mock.calls.map(([method]) => method);
      expect(asked).toContain('eth_getTransactionReceipt');
      expect(asked).not.toContain('eth_getBlockByHash');
      // In the index before the answer (read-your-writes), with its block's own time.
      const { rows } = await pool.query<{ time: number; block_number: number }>(
        `SELECT extract(epoch FROM block_time)::int AS time, block_number::int FROM completed_actions
         WHERE transaction_hash = $1`,
        [receipt.hash],
      );
      expect(rows).toHaveLength(1);
      const block = await laurel.chain!.provider.getBlock(rows[0]!.block_number);
      expect(rows[0]!.time).toBe(block!.timestamp);
    } finally {
      send.mockRestore();
    }
  });
});

describe('ChainIndexer', () => {
  let testChain: TestChain;
  let database: { url: string; drop(): Promise<void> };
  let pool: Pool;
  let registry: ChainRegistry;
  let app: Contract;
  const running: ChainIndexer[] = [];
  const log = createLogger('silent');

  /** The test chain as the indexer sees it, with `confirmations` (and a finality depth). */
  const chainWith = (confirmations: number, finalityDepth?: number): Chain => {
    const name = `local-${confirmations}-${finalityDepth ?? 'default'}`;
    return (
      registry.list().find((chain) => chain.name === name) ??
      registry.add(chainConfigOf(testChain, { name, confirmations, finalityDepth }))
    );
  };
  const startIndexer = (chain: Chain = chainWith(1), into: Pool = pool) => {
    const indexer = new ChainIndexer({
      chain,
      pool: into,
      log,
      pollIntervalMs: 20,
      maxBlockRange: 5,
      startBlock: 0,
    });
    indexer.start();
    running.push(indexer);
    return indexer;
  };
  const stopAll = async () => {
    await Promise.all(running.splice(0).map((indexer) => indexer.stop()));
  };
  const reward = async (user: string, amount: bigint, action = 'act') =>
    mined(app.rewardXP(user, amount, encodeActionId(action)) as Promise<ContractTransactionResponse>);
  const totalOf = async (user: string) => {
    const { rows } = await pool.query(
      `SELECT (SELECT amount::text FROM reward_totals WHERE token_address = $2 AND user_address = $1) AS total,
              (SELECT count(*)::int FROM completed_actions WHERE user_address = $1) AS actions,
              (SELECT balance::text FROM token_balances WHERE holder = $1) AS balance`,
      [user, ALL_XP_TOKEN],
    );
    return rows[0] as { total: string | null; actions: number; balance: string | null };
  };

  beforeAll(async () => {
    testChain = await startTestChain();
    database = await createTestDatabase();
    pool = createTestPool(database.url, 8);
    registry = new ChainRegistry([], 10_000);
    const owner = testChain.wallets[1];
    const factory = new Contract(testChain.factory, appFactoryInterface, owner);
    const receipt = await mined(factory.createApp('Direct') as Promise<ContractTransactionResponse>);
    app = new Contract(eventArg(receipt.logs, appFactoryInterface, 'AppCreated', 'app'), appInterface, owner);
  });
  afterEach(stopAll);
  afterAll(async () => {
    await stopAll();
    registry?.destroy();
    await pool?.end();
    await database?.drop();
    await testChain?.stop();
  });

  it('resumes from its cursor after a restart without counting anything twice', async () => {
    const user = Wallet.createRandom().address;
    await reward(user, 3n);
    await reward(user, 4n);
    startIndexer();
    await caughtUp(pool, testChain);
    await stopAll();
    expect(await totalOf(user)).toEqual({ total: '7', actions: 2, balance: '7' });

    await reward(user, 5n);
    startIndexer();
    await caughtUp(pool, testChain);
    expect(await totalOf(user)).toEqual({ total: '12', actions: 3, balance: '12' });
  });

  it('lets one indexer per chain work on a shared database; the other takes over when it stops', async () => {
    const user = Wallet.createRandom().address;
    const first = startIndexer();
    const second = startIndexer();
    await waitUntil(
      'one indexer to hold the lock',
      async () => first.status().active || second.status().active,
    );
    await reward(user, 1n);
    await reward(user, 2n);
    await caughtUp(pool, testChain);
    const [active, standby] = first.status().active ? [first, second] : [second, first];
    expect(standby.status().active).toBe(false);
    expect(await totalOf(user)).toEqual({ total: '3', actions: 2, balance: '3' });

    await active.stop();
    await reward(user, 4n);
    await waitUntil('the standby to take over', async () => standby.status().active);
    await caughtUp(pool, testChain);
    expect(await totalOf(user)).toEqual({ total: '7', actions: 3, balance: '7' });
  });

  it('ingests a receipt ahead of the indexer once, and the indexer does not count it again', async () => {
    const user = Wallet.createRandom().address;
    const chain = chainWith(1);
    const receipt = await reward(user, 6n, 'ahead');
    const ingested = await ingestReceiptLogs(pool, chain, [receipt]);
    expect(ingested.found).toBe(0);
    expect(ingested.events).toBeGreaterThan(0);
    expect(Number.isFinite(ingested.rewardsFromDay)).toBe(true);
    // In already: found (the commit that wrote them is what a caller's read depends on), not written.
    const again = { events: 0, found: ingested.events, rewardsFromDay: ingested.rewardsFromDay };
    expect(await ingestReceiptLogs(pool, chain, [receipt])).toMatchObject(again);
    expect(await totalOf(user)).toEqual({ total: '6', actions: 1, balance: '6' });
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM indexer_receipt_logs');
    expect(rows[0].n).toBeGreaterThan(0);

    startIndexer(chain);
    await caughtUp(pool, testChain);
    expect(await totalOf(user)).toEqual({ total: '6', actions: 1, balance: '6' });
    // Behind the cursor now: ingesting it again changes nothing, and the skip list is emptied.
    expect(await ingestReceiptLogs(pool, chain, [receipt])).toMatchObject(again);
    expect(await totalOf(user)).toEqual({ total: '6', actions: 1, balance: '6' });
    const after = await pool.query('SELECT count(*)::int AS n FROM indexer_receipt_logs');
    expect(after.rows[0].n).toBe(0);
  });

  it('ingests receipts of several blocks together, each log once, also when some were ingested before', async () => {
    const user = Wallet.createRandom().address;
    const chain = chainWith(1);
    const first = await reward(user, 1n, 'together');
    const second = await reward(user, 2n, 'together');
    const third = await reward(user, 4n, 'together');
    expect(new Set([first, second, third].map((receipt) => receipt.blockNumber)).size).toBe(3);
    expect((await ingestReceiptLogs(pool, chain, [second])).events).toBeGreaterThan(0);
    // `second` again, beside two new ones (and `first` twice): only the new logs are written.
    await ingestReceiptLogs(pool, chain, [first, second, third, first]);
    expect(await totalOf(user)).toEqual({ total: '7', actions: 3, balance: '7' });
    expect((await ingestReceiptLogs(pool, chain, [third, first, second])).events).toBe(0);
    const { rows } = await pool.query<{ blocks: number }>(
      'SELECT count(DISTINCT (block_number, block_hash))::int AS blocks FROM indexer_receipt_logs WHERE block_number = ANY($1)',
      [[first, second, third].map((receipt) => receipt.blockNumber)],
    );
    expect(rows[0]!.blocks).toBe(3);
  });

  it('leaves out the receipts of a batch whose block the chain replaced, and ingests the others', async () => {
    const [kept, replaced] = [Wallet.createRandom().address, Wallet.createRandom().address];
    const chain = chainWith(1);
    const keptReceipt = await reward(kept, 3n, 'kept');
    const replacedReceipt = await reward(replaced, 5n, 'replaced');
    // The last block (the second reward's) is replaced by an empty one at the same height.
    await testChain.provider.send('anvil_reorg', [1, []]);
    expect(await testChain.provider.getBlock(replacedReceipt.blockHash)).toBeNull();

    const ingested = await ingestReceiptLogs(pool, chain, [keptReceipt, replacedReceipt]);
    expect(ingested.events).toBeGreaterThan(0);
    expect(await totalOf(kept)).toEqual({ total: '3', actions: 1, balance: '3' });
    expect(await totalOf(replaced)).toEqual({ total: null, actions: 0, balance: null });
    const { rows } = await pool.query<{ block_number: string }>(
      'SELECT DISTINCT block_number FROM indexer_receipt_logs WHERE block_number = ANY($1)',
      [[keptReceipt.blockNumber, replacedReceipt.blockNumber]],
    );
    expect(rows.map((row) => Number(row.block_number))).toEqual([keptReceipt.blockNumber]);
  });

  it('reads a block’s time once by its hash, for concurrent asks and later ones; an unknown block is asked again', async () => {
    const chain = chainWith(1);
    const receipt = await reward(Wallet.createRandom().address, 1n, 'timed');
    const block = (await testChain.provider.getBlock(receipt.blockHash))!;
    const times = new BlockTimesByHash();
    const send = jest.spyOn(chain.provider, 'send');
    try {
      const asked = await Promise.all([times.of(chain, block.hash!), times.of(chain, block.hash!)]);
      expect(asked).toEqual([block.timestamp, block.timestamp]);
      expect(await times.of(chain, block.hash!)).toBe(block.timestamp);
      const unknown = `0x${'ab'.repeat(32)}`;
      expect(await times.of(chain, unknown)).toBeNull();
      expect(await times.of(chain, unknown)).toBeNull();
      expect(send.mock.calls.map(([method, params]) => [method, (params as unknown[])[0]])).toEqual([
        ['eth_getBlockByHash', block.hash],
        ['eth_getBlockByHash', unknown],
        ['eth_getBlockByHash', unknown],
      ]);
    } finally {
      send.mockRestore();
    }
  });

  it('keeps the block time a node sends on a receipt’s logs, and none from a node that sends none', async () => {
    const chain = chainWith(1);
    const sent = await reward(Wallet.createRandom().address, 1n, 'stamped');
    const block = (await testChain.provider.getBlock(sent.blockHash))!;
    const receipt = (await chain.provider.getTransactionReceipt(sent.hash))!;
    expect(receiptBlockTime(receipt)).toBe(block.timestamp);

    const raw = (await chain.provider.send('eth_getTransactionReceipt', [sent.hash])) as {
      logs: Record<string, unknown>[];
    };
    const unstamped = { ...raw, logs: raw.logs.map(({ blockTimestamp: _dropped, ...log }) => log) };
    const network = await chain.provider.getNetwork();
    expect(
      receiptBlockTime(chain.provider._wrapTransactionReceipt(unstamped as never, network)),
    ).toBeUndefined();
    // A receipt ethers made elsewhere (not through the chain's provider) has none either.
    expect(receiptBlockTime(sent)).toBeUndefined();
  });

  it('indexes only blocks with the chain’s confirmations, so a shallower reorg never reaches the index', async () => {
    const user = Wallet.createRandom().address;
    const chain = chainWith(3);
    const indexer = startIndexer(chain);
    await caughtUp(pool, testChain, 2);
    const snapshot = (await testChain.provider.send('evm_snapshot', [])) as string;
    const dropped = await reward(user, 100n, 'dropped');
    await waitUntil(
      'the indexer to see the new head',
      async () => indexer.status().head === dropped.blockNumber,
    );
    await caughtUp(pool, testChain, 2);
    expect(await cursorOf(pool, 31337)).toBeLessThan(dropped.blockNumber);
    expect(await totalOf(user)).toEqual({ total: null, actions: 0, balance: null });

    // The block with the reward is replaced: same height, another transaction.
    await testChain.provider.send('evm_revert', [snapshot]);
    const kept = await reward(user, 1n, 'kept');
    expect(kept.blockNumber).toBe(dropped.blockNumber);
    await testChain.provider.send('anvil_mine', ['0x2']);
    await caughtUp(pool, testChain, 2);
    expect(await cursorOf(pool, 31337)).toBeGreaterThanOrEqual(kept.blockNumber);
    const { rows } = await pool.query(
      'SELECT action_name, amount::text, transaction_hash FROM completed_actions WHERE user_address = $1',
      [user],
    );
    expect(rows).toEqual([{ action_name: 'kept', amount: '1', transaction_hash: kept.hash }]);
    expect(await totalOf(user)).toEqual({ total: '1', actions: 1, balance: '1' });
  });

  it('records the blocks a reorganisation may still replace, and forgets them once they are final', async () => {
    const chain = chainWith(1, 3);
    const indexer = startIndexer(chain);
    await testChain.provider.send('anvil_mine', ['0x5']);
    await caughtUp(pool, testChain);
    await waitUntil('a range indexed at the head', () => indexer.status().finalized !== null);
    const head = await testChain.provider.getBlockNumber();
    const { rows } = await pool.query<{ block_number: string; hash: string }>(
      'SELECT block_number, hash FROM indexed_blocks ORDER BY block_number',
    );
    // anvil calls head - 64 finalized: the depth (3) is the nearer, the finalized block stays as the anchor.
    expect(indexer.status().finalized).toBe(head - 3);
    expect(rows.map((row) => Number(row.block_number))).toEqual([head - 3, head - 2, head - 1, head]);
    for (const row of rows) {
      expect(row.hash).toBe((await testChain.provider.getBlock(Number(row.block_number)))!.hash);
    }
  });

  it('undoes a receipt ingested ahead of it whose block the chain replaced before it got there', async () => {
    const user = Wallet.createRandom().address;
    const chain = chainWith(1);
    startIndexer(chain);
    await caughtUp(pool, testChain);
    await stopAll();
    const receipt = await reward(user, 8n, 'orphaned');
    await ingestReceiptLogs(pool, chain, [receipt]);
    expect(await totalOf(user)).toEqual({ total: '8', actions: 1, balance: '8' });

    await testChain.provider.send('anvil_reorg', [1, []]);
    startIndexer(chain);
    await caughtUp(pool, testChain);
    expect(await totalOf(user)).toEqual({ total: null, actions: 0, balance: '0' });
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM indexer_receipt_logs');
    expect(rows[0].n).toBe(0);
  });

  it('indexes from block 0 a chain whose node answers another genesis block than block 1 extends', async () => {
    const user = Wallet.createRandom().address;
    await reward(user, 6n, 'before the save');
    // anvil's state as the embedded chain saves it after a few starts: each start from a saved
    // state adds a genesis block to it, and the last one listed is answered as block 0.
    const state = JSON.parse((await dumpedChainState(testChain.provider)).toString('utf8')) as {
      blocks: { header: { number: string; timestamp: string } }[];
    };
    const genesis = state.blocks.find((block) => Number(block.header.number) === 0)!;
    const added = {
      ...genesis,
      header: { ...genesis.header, timestamp: `0x${(Number(genesis.header.timestamp) + 1).toString(16)}` },
    };
    state.blocks.push(added);
    const folder = mkdtempSync(path.join(tmpdir(), 'laurel-genesis-'));
    const stateFile = path.join(folder, 'state.json');
    writeFileSync(stateFile, JSON.stringify(state));
    const restarted = await startAnvil({ loadState: stateFile });
    const ownDatabase = await createTestDatabase();
    const ownPool = createTestPool(ownDatabase.url, 4);
    const ownRegistry = new ChainRegistry([], 10_000);
    try {
      const chain = ownRegistry.add(
        chainConfigOf(testChain, { name: 'restarted', rpcUrl: restarted.rpcUrl, finalityDepth: 100_000 }),
      );
      const [block0, block1] = await Promise.all([chain.provider.getBlock(0), chain.provider.getBlock(1)]);
      expect(block1!.parentHash).not.toBe(block0!.hash);

      startIndexer(chain, ownPool);
      const head = await chain.provider.getBlockNumber();
      await waitUntil(
        `the index to reach block ${head}`,
        async () => (await cursorOf(ownPool, 31337)) >= head,
      );
      const { rows } = await ownPool.query(
        'SELECT amount::text FROM reward_totals WHERE token_address = $2 AND user_address = $1',
        [user, ALL_XP_TOKEN],
      );
      expect(rows).toEqual([{ amount: '6' }]);
      // Tracked from block 1: the genesis block is never replaced.
      const tracked = await ownPool.query('SELECT min(block_number)::int AS first FROM indexed_blocks');
      expect(tracked.rows[0].first).toBe(1);
    } finally {
      await stopAll();
      ownRegistry.destroy();
      await ownPool.end();
      await ownDatabase.drop();
      await restarted.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
