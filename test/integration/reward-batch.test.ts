import fs from 'node:fs';
import path from 'node:path';
import {
  Contract,
  ContractFactory,
  getAddress,
  hexlify,
  randomBytes,
  type ContractTransactionResponse,
  type Interface,
  type Wallet,
} from 'ethers';
import {
  appFactoryInterface,
  appInterface,
  badgeInterface,
  creditTokenInterface,
  encodeActionId,
  RewardKind,
  xpTokenInterface,
} from '../../src/chain/contracts';
import { mined } from '../helpers/chain';
import {
  UNSIGNED_TX_WITH_GAS,
  client,
  eventArg,
  issueApiKeys,
  type Body,
  type Client,
  type Receipt,
  type Unsigned,
} from '../helpers/flow';
import { graphql, request, startTestLaurel, type HttpResult, type TestLaurel } from '../helpers/laurel';

/**
 * Batch rewards (POST /v1/reward/batch, mutation rewardBatch) on anvil and PostgreSQL: one
 * transaction of App.batch, signed and executed, whose Rewarded events (one a reward) reach
 * profiles and leaderboards; every item validated as its single endpoint validates it, a failing
 * item named by its index, the bound on items, and apps deployed before App.batch.
 */
let laurel: TestLaurel;
let owner: Wallet;
let stranger: Wallet;
let strangerKey: string;
let api: Client; // the owner's
let appId: string;
let gold: string;
let credit: string; // 6 decimals, initial supply held by the owner, 10 of it approved for the app
let points: string; // 2 decimals, point token

const MAX_ITEMS = 200; // REWARD_BATCH_MAX_ITEMS' default
const rewardedTopic = appInterface.getEvent('Rewarded')!.topicHash;
const contract = (address: string, iface: Interface) => new Contract(address, iface, laurel.chain!.provider);
const xpBalance = async (user: string) =>
  (await contract(await contract(appId, appInterface).xpToken(), xpTokenInterface).balanceOf(user)) as bigint;
const tokenBalance = async (token: string, user: string) =>
  (await contract(token, creditTokenInterface).balanceOf(user)) as bigint;
const rewardedLogs = (receipt: Receipt) => receipt.logs.filter((log) => log.topics[0] === rewardedTopic);
/** Fresh addresses (random bytes: Wallet.createRandom derives a mnemonic's key, slow by the hundred). */
const receivers = (count: number) =>
  Array.from({ length: count }, () => getAddress(hexlify(randomBytes(20))));
/**
 * The users' profiles in the app, one after the other, a connection each: a hundred read at once
 * were refused a connection now and then (ECONNRESET) on a loaded machine, and a kept-alive one
 * the server closes (its idle timeout reached) as the next request goes out fails that request
 * too (see fuzz.test.ts).
 */
async function profilesOf(users: string[]): Promise<HttpResult[]> {
  const profiles: HttpResult[] = [];
  for (const user of users) {
    profiles.push(
      await request(laurel.url, 'GET', `/v1/profile?chain=local&user_id=${user}&app_id=${appId}`, {
        apiKey: ownerKey,
        headers: { Connection: 'close' },
      }),
    );
  }
  return profiles;
}
const batch = (items: Body[], key?: string) =>
  api.post('/reward/batch', { chain: 'local', app_id: appId, items }, key);

const REWARD_BATCH = `
  mutation ($app: String!, $items: [RewardBatchItem!]!) {
    rewardBatch(chain: "local", app_id: $app, items: $items) {
      unsignedTransaction { to data maxPriorityFeePerGas maxFeePerGas gasLimit gas nonce chainId type }
    }
  }
`;

let ownerKey: string;
const gql = (items: Body[], app = appId) =>
  graphql<{ rewardBatch: { unsignedTransaction: Unsigned } }>(laurel.url, REWARD_BATCH, {
    apiKey: ownerKey,
    variables: { app, items },
  });

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, owner, stranger] = laurel.chain!.wallets;
  [ownerKey, strangerKey] = await issueApiKeys(laurel.url, [owner, stranger]);
  api = client(laurel.url, ownerKey, owner);
  const createdBy = async (
    tx: Promise<ContractTransactionResponse>,
    iface: Interface,
    event: string,
    arg: string,
  ) => eventArg((await mined(tx)).logs, iface, event, arg);
  const factory = new Contract(laurel.chain!.factory, appFactoryInterface, owner);
  appId = await createdBy(factory.createApp('Batch'), appFactoryInterface, 'AppCreated', 'app');
  const app = new Contract(appId, appInterface, owner);
  gold = await createdBy(app.createBadge('Gold', 'ipfs://gold/'), appInterface, 'BadgeCreated', 'badge');
  credit = await createdBy(
    app.createCreditToken('Credit', 'CRD', 6, 1_000n * 10n ** 6n, false),
    appInterface,
    'CreditTokenCreated',
    'token',
  );
  points = await createdBy(
    app.createCreditToken('Points', 'PTS', 2, 0n, true),
    appInterface,
    'CreditTokenCreated',
    'token',
  );
  await mined(new Contract(credit, creditTokenInterface, owner).approve(appId, 10n * 10n ** 6n));
});
afterAll(async () => {
  await laurel?.stop();
});

describe('a batch of 100 XP rewards', () => {
  const users = receivers(100);

  it('REST: one transaction, 100 Rewarded events (log indexes in order), 100 profiles and the leaderboard', async () => {
    const items = users.map((receiver, i) => ({
      kind: 'xp',
      action_id: 'season-1',
      receiver,
      amount: i + 1,
    }));
    const built = await batch(items);
    expect(built.status).toBe(200);
    expect(built.body).toEqual({ success: true, unsignedTransaction: UNSIGNED_TX_WITH_GAS });
    const unsigned = built.body.unsignedTransaction as Unsigned;
    expect(unsigned.to).toBe(appId);
    const [calls] = appInterface.decodeFunctionData('batch', unsigned.data as string) as unknown as [
      string[],
    ];
    expect(calls).toHaveLength(100);
    expect(calls[7]).toBe(
      appInterface.encodeFunctionData('rewardXP', [users[7], 8n * 10n ** 18n, encodeActionId('season-1')]),
    );

    const receipt = await api.execute(unsigned);
    const rewarded = rewardedLogs(receipt).map((log) => appInterface.parseLog(log)!);
    expect(rewarded.map((event) => event.args.receiver as string)).toEqual(users);
    expect(rewarded.every((event) => Number(event.args.kind) === RewardKind.XP)).toBe(true);
    const gasUsed = BigInt((receipt as unknown as { gasUsed: string }).gasUsed);
    const block = await laurel.chain!.provider.getBlock('latest');
    expect(gasUsed).toBeLessThan(block!.gasLimit / 2n);

    // execute-and-wait has ingested the receipt: every profile shows its reward at once.
    const profiles = await profilesOf(users);
    profiles.forEach((profile, i) => {
      expect(profile.status).toBe(200);
      expect(profile.body).toMatchObject({
        user_id: users[i],
        xp_balance: String(i + 1),
        completed_actions: [{ name: 'season-1', xp_rewarded: String(i + 1) }],
      });
    });
    const board = await api.get(`/leaderboard?chain=local&app_id=${appId}&page_size=100`);
    expect(board.status).toBe(200);
    expect(board.body).toEqual(users.map((user, i) => ({ user, xp_rewarded: String(i + 1) })).reverse());
    expect(await xpBalance(users[99]!)).toBe(100n * 10n ** 18n);
  });

  it('GraphQL rewardBatch: the same 100 rewards again, each profile doubled', async () => {
    const items = users.map((receiver, i) => ({
      kind: 'xp',
      action_id: 'season-2',
      receiver,
      amount: String(i + 1),
    }));
    const result = await gql(items);
    expect(result.body.errors).toBeUndefined();
    const unsigned = result.body.data!.rewardBatch.unsignedTransaction;
    expect(unsigned).toEqual(UNSIGNED_TX_WITH_GAS);
    const receipt = await api.execute(unsigned);
    expect(rewardedLogs(receipt)).toHaveLength(100);
    const profiles = await profilesOf(users);
    profiles.forEach((profile, i) => expect(profile.body).toMatchObject({ xp_balance: String(2 * (i + 1)) }));
  });
});

describe('a mixed batch', () => {
  it('GraphQL: XP, badges, credit minted and transferred, points in one transaction, one Rewarded each', async () => {
    const [alice, bob] = receivers(2);
    const items = [
      { kind: 'xp', action_id: 'quest', receiver: alice, amount: '1.5' },
      { kind: 'badge', action_id: 'quest', receiver: alice, amount: 2, badge_name: 'Gold' },
      { kind: 'credit', action_id: 'quest', receiver: bob, amount: '2.5', token_address: credit, mint: true },
      { kind: 'credit', action_id: 'quest', receiver: bob, amount: '1', token_address: credit },
      { kind: 'point', action_id: 'quest', receiver: alice, amount: '3.25', token_address: points },
    ];
    const result = await gql(items);
    expect(result.body.errors).toBeUndefined();
    const receipt = await api.execute(result.body.data!.rewardBatch.unsignedTransaction);
    const kinds = rewardedLogs(receipt).map((log) => Number(appInterface.parseLog(log)!.args.kind));
    expect(kinds).toEqual([
      RewardKind.XP,
      RewardKind.Badge,
      RewardKind.CreditMint,
      RewardKind.CreditTransfer,
      RewardKind.Point,
    ]);
    expect(await xpBalance(alice!)).toBe(1_500_000_000_000_000_000n);
    expect((await contract(gold, badgeInterface).balanceOf(alice)) as bigint).toBe(2n);
    expect(await tokenBalance(credit, bob!)).toBe(3_500_000n);
    expect(await tokenBalance(points, alice!)).toBe(325n);
    const profile = await api.get(`/profile?chain=local&user_id=${alice}&app_id=${appId}`);
    expect(profile.body).toMatchObject({
      xp_balance: '1.5',
      collected_badges: [{ id: gold, name: 'Gold' }],
    });
  });

  it('REST: the same kinds, the badge by id with its own URI', async () => {
    const [carol] = receivers(1);
    const built = await batch([
      {
        kind: 'badge',
        action_id: 'event',
        receiver: carol,
        amount: 1,
        badge_id: gold,
        base_uri: 'ipfs://own',
      },
      { kind: 'point', action_id: 'event', receiver: carol, amount: 1, token_address: points },
      { kind: 'xp', action_id: 'event', receiver: carol, amount: 2 },
    ]);
    expect(built.status).toBe(200);
    const receipt = await api.execute(built.body.unsignedTransaction as Unsigned);
    expect(rewardedLogs(receipt)).toHaveLength(3);
    expect((await contract(gold, badgeInterface).balanceOf(carol)) as bigint).toBe(1n);
    expect(await tokenBalance(points, carol!)).toBe(100n);
    expect(await xpBalance(carol!)).toBe(2n * 10n ** 18n);
  });

  it(`the largest batch (${MAX_ITEMS} items, every kind) fits a block with room to spare`, async () => {
    const users = receivers(MAX_ITEMS);
    const kinds: Body[] = [
      { kind: 'xp', amount: 1 },
      { kind: 'badge', amount: 1, badge_id: gold },
      { kind: 'credit', amount: 1, token_address: credit, mint: true },
      { kind: 'point', amount: 1, token_address: points },
    ];
    const items = users.map((receiver, i) => ({ ...kinds[i % 4], action_id: 'max', receiver }));
    const built = await batch(items);
    expect(built.status).toBe(200);
    const unsigned = built.body.unsignedTransaction as Unsigned;
    const block = await laurel.chain!.provider.getBlock('latest');
    // gasLimit is the estimate + 20 %: even that stays under half a block.
    expect(BigInt(unsigned.gasLimit as string)).toBeLessThan(block!.gasLimit / 2n);
    const receipt = await api.execute(unsigned);
    expect(rewardedLogs(receipt)).toHaveLength(MAX_ITEMS);
  });
});

describe('refused items', () => {
  const [dave] = receivers(1);
  const xp = (amount: unknown) => ({ kind: 'xp', action_id: 'a', receiver: dave, amount });

  it('REST: an invalid item is named by its index in Shape B (items.<index>.<field>)', async () => {
    const result = await batch([
      xp(1),
      xp(1),
      xp(1),
      xp(0),
      { kind: 'badge', action_id: 'a', receiver: dave, amount: 1 },
    ]);
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ success: false, error: { code: 'validation_error' } });
    const issues = (result.body.error as { issues: { path: string; parameter: string }[] }).issues;
    expect(issues.map((issue) => issue.path)).toEqual(['items.3.amount', 'items.4.badge_name']);

    const unknownKind = await batch([xp(1), { kind: 'nft', action_id: 'a', receiver: dave, amount: 1 }]);
    expect(unknownKind.status).toBe(400);
    expect(unknownKind.body).toMatchObject({
      error: { issues: [{ code: 'invalid_union_discriminator', path: 'items.1.kind' }] },
    });
    const tooFine = await batch([xp(1), xp(1), xp(1e-19)]);
    expect(tooFine.body).toMatchObject({ error: { issues: [{ path: 'items.2.amount' }] } });
    const empty = await batch([]);
    expect(empty.body).toMatchObject({ error: { issues: [{ code: 'too_small', path: 'items' }] } });
  });

  it('GraphQL: the same index in the issue path', async () => {
    const result = await gql([xp('1'), { ...xp('1'), kind: 'badge', badge_name: 'Gold', badge_id: gold }]);
    expect(result.body.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [expect.objectContaining({ path: ['items', 1, 'badge_id'] })],
    });
  });

  it('an item refused before the chain (unknown badge, a credit token as points) names its index', async () => {
    const badge = await batch([
      xp(1),
      { kind: 'badge', action_id: 'a', receiver: dave, amount: 1, badge_name: 'Nope' },
    ]);
    expect(badge.status).toBe(404);
    expect(badge.body).toEqual({
      success: false,
      error: {
        code: 'badge_not_found',
        message: 'items.1: No badge found with this name in this app',
        item_index: 1,
      },
    });
    const result = await gql([
      xp('1'),
      xp('1'),
      { kind: 'point', action_id: 'a', receiver: dave, amount: '1', token_address: credit },
    ]);
    expect(result.body.errors![0]!.extensions).toMatchObject({ code: 'TOKEN_NOT_FOUND', item_index: 2 });
  });

  it('REST: a reverting item is named by its index in a Shape B transaction_error', async () => {
    // The app may move 10 CRD of the owner's (less what the mixed batch moved): 1000 is too many.
    const result = await batch([
      xp(1),
      xp(2),
      { kind: 'credit', action_id: 'a', receiver: dave, amount: 1000, token_address: credit },
      xp(3),
    ]);
    expect(result.status).toBe(422);
    expect(result.body).toMatchObject({
      success: false,
      error: {
        code: 'transaction_error',
        message: expect.stringContaining('"transferERC20" of item 2 reverted'),
        transaction_error: {
          item_index: 2,
          function_name: 'transferERC20',
          reason: expect.stringMatching(/^ERC20InsufficientAllowance\(/),
          contract_address: appId,
          data: { errorName: 'ERC20InsufficientAllowance' },
        },
      },
    });
  });

  it('GraphQL: a reverting item (the zero address as receiver) is named by its index', async () => {
    const zero = '0x0000000000000000000000000000000000000000';
    const result = await gql([xp('1'), { kind: 'xp', action_id: 'a', receiver: zero, amount: '1' }]);
    expect(result.body.errors![0]!.extensions).toMatchObject({
      code: 'TRANSACTION_ERROR',
      transaction_error: { item_index: 1, function_name: 'rewardXP', reason: 'ZeroAddress()' },
    });
  });

  it("a stranger's batch is refused as a single reward is: NotOperator, no item", async () => {
    const result = await batch([xp(1)], strangerKey);
    expect(result.status).toBe(422);
    expect(result.body).toMatchObject({
      error: { transaction_error: { function_name: 'batch', reason: `NotOperator(${stranger.address})` } },
    });
    expect((result.body.error as Body).transaction_error).not.toHaveProperty('item_index');
  });

  it(`refuses more than REWARD_BATCH_MAX_ITEMS (${MAX_ITEMS}) items, REST and GraphQL`, async () => {
    const items = receivers(MAX_ITEMS + 1).map((receiver) => ({
      kind: 'xp',
      action_id: 'a',
      receiver,
      amount: 1,
    }));
    const result = await batch(items);
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({
      success: false,
      error: {
        code: 'validation_error',
        issues: [
          { code: 'too_big', path: 'items', message: expect.stringContaining(`at most ${MAX_ITEMS} items`) },
        ],
      },
    });
    const viaGraphQL = await gql(items.map((item) => ({ ...item, amount: '1' })));
    expect(viaGraphQL.body.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [expect.objectContaining({ code: 'too_big', path: ['items'], maximum: MAX_ITEMS })],
    });
  });
});

describe('an app deployed before App.batch', () => {
  let oldApp: string;

  beforeAll(async () => {
    // The App implementation as built before batch, and an app of the factory made a clone of it
    // (EIP-1167; the app keeps its storage: owner, XP token, …), as a deployed app of then is.
    const fixture = JSON.parse(
      fs.readFileSync(path.join(__dirname, '../fixtures/contracts/App-before-batch.json'), 'utf8'),
    ) as { bytecode: string };
    const deployment = laurel.chain!.deployment;
    const implementation = await new ContractFactory(appInterface, fixture.bytecode, owner).deploy(
      deployment.badgeImplementation,
      deployment.creditTokenDeployer,
    );
    await implementation.waitForDeployment();
    const factory = new Contract(laurel.chain!.factory, appFactoryInterface, owner);
    oldApp = eventArg((await mined(factory.createApp('Old'))).logs, appFactoryInterface, 'AppCreated', 'app');
    const target = (await implementation.getAddress()).slice(2).toLowerCase();
    await laurel.chain!.provider.send('anvil_setCode', [
      oldApp,
      `0x363d3d373d3d3d363d73${target}5af43d82803e903d91602b57fd5bf3`,
    ]);
  });

  it('answers a batch with 422 batch_unsupported (REST and GraphQL), and still builds single rewards', async () => {
    const [erin] = receivers(1);
    const items = [{ kind: 'xp', action_id: 'a', receiver: erin, amount: 1 }];
    const result = await api.post('/reward/batch', { chain: 'local', app_id: oldApp, items });
    expect(result.status).toBe(422);
    expect(result.body).toEqual({
      success: false,
      error: { code: 'batch_unsupported', message: expect.stringContaining('deployed before batch rewards') },
    });
    const viaGraphQL = await gql(
      items.map((item) => ({ ...item, amount: '1' })),
      oldApp,
    );
    expect(viaGraphQL.body.errors![0]!.extensions).toMatchObject({ code: 'BATCH_UNSUPPORTED' });

    const single = await api.post('/reward/XP', {
      chain: 'local',
      app_id: oldApp,
      action_id: 'a',
      receiver: erin,
      amount: 1,
    });
    expect(single.status).toBe(200);
    const receipt = await api.execute(single.body.unsignedTransaction as Unsigned);
    expect(rewardedLogs(receipt)).toHaveLength(1);
  });
});
