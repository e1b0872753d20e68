import { Contract, Wallet, parseEther, type ContractTransactionResponse } from 'ethers';
import { appInterface, encodeActionId } from '../../src/chain/contracts';
import { ingestReceiptLogs } from '../../src/indexer/receipt-ingestion';
import type { IndexChange } from '../../src/indexer/index-changes';
import { writeIndexEvents } from '../helpers/index-writes';
import type { IndexEvent } from '../../src/indexer/log-decoder';
import type { Pool } from 'pg';
import { operationRunner } from '../../src/operations/operation';
import type { AuthenticatedContext } from '../../src/operations/request-context';
import { IndexReader } from '../../src/indexer/read/index-reader';
import { createLogger } from '../../src/logger';
import { appsModule } from '../../src/modules/apps/apps.module';
import { leaderboardModule } from '../../src/modules/leaderboard/leaderboard.module';
import { LeaderboardResolver } from '../../src/modules/leaderboard/leaderboard.resolver';
import { LeaderboardService } from '../../src/modules/leaderboard/leaderboard.service';
import type { LeaderboardEntryInfo } from '../../src/modules/leaderboard/leaderboard.types';
import { profileModule } from '../../src/modules/profile/profile.module';
import { createTestPool } from '../helpers/database';
import { client, createApp, eventArg, issueApiKeys, type Client, type Unsigned } from '../helpers/flow';
import { graphql, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * Profiles and leaderboards over the index, with every reward made through Laurel's builders and
 * execute-and-wait. The indexer polls only once a minute here, so what the reads show right after
 * execute-and-wait was put in the index by execute-and-wait itself (read-your-writes).
 */
const DAY = 86_400;
/** 2030-01-01T00:00:00Z: rewards get block times from here on (anvil's evm_setNextBlockTimestamp). */
const T0 = Date.UTC(2030, 0, 1) / 1000;

let laurel: TestLaurel;
let api: Client;
let ownerKey: string;
let owner: Wallet;
let appId: string;
let otherAppId: string;
let badge: string;
let credit: string;
let points: string;
// Sorted by address, so ties are predictable.
const [alice, bob, carol, dave] = Array.from({ length: 4 }, () => Wallet.createRandom().address).sort(
  (a, b) => a.toLowerCase().localeCompare(b.toLowerCase()),
);

async function executed(path: string, body: Record<string, unknown>, at?: number) {
  const built = await api.post(path, { chain: 'local', ...body });
  expect(built).toMatchObject({ status: 200 });
  if (at !== undefined) await laurel.chain!.provider.send('evm_setNextBlockTimestamp', [at]);
  return api.execute(built.body.unsignedTransaction as Unsigned);
}
const rewardXP = (app: string, receiver: string, amount: number, action: string, at: number) =>
  executed('/reward/XP', { app_id: app, receiver, amount, action_id: action }, at);

const leaderboard = (query: string) => api.get(`/leaderboard?chain=local&${query}`);
const profile = (query: string) => api.get(`/profile?chain=local&${query}`);

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true, env: { INDEXER_POLL_INTERVAL_MS: '60000' } });
  [, owner] = laurel.chain!.wallets;
  [ownerKey] = await issueApiKeys(laurel.url, [owner]);
  api = client(laurel.url, ownerKey, owner);
  appId = await createApp(api, 'Quests');
  otherAppId = await createApp(api, 'Other');
  const badgeReceipt = await executed('/badge/new', {
    app_id: appId,
    badge_name: 'Gold',
    base_uri: 'ipfs://gold/',
  });
  badge = eventArg(badgeReceipt.logs, appInterface, 'BadgeCreated', 'badge');
  const token = (name: string, isPoint: boolean) =>
    executed('/credit/new', {
      app_id: appId,
      token_name: name,
      token_symbol: name.slice(0, 3).toUpperCase(),
      token_supply: 0,
      token_decimals: isPoint ? 0 : 6,
      token_is_point: isPoint,
    }).then((receipt) => eventArg(receipt.logs, appInterface, 'CreditTokenCreated', 'token'));
  credit = await token('Credit', false);
  points = await token('Points', true);

  // Day 1 (2030-01-01): alice 5, dave 3 at its start, bob 3 in its last second.
  await rewardXP(appId, alice, 5, 'daily-login', T0 + 10);
  await rewardXP(appId, dave, 3, 'quest', T0 + 100);
  await rewardXP(appId, bob, 3, 'quest', T0 + DAY - 1);
  // Day 2: carol 7 in its first second; day 3: alice 1.5 more, and XP of another app.
  await rewardXP(appId, carol, 7, 'quest', T0 + DAY);
  await rewardXP(appId, alice, 1.5, 'streak', T0 + 2 * DAY + 100);
  await rewardXP(otherAppId, alice, 10, 'elsewhere', T0 + 2 * DAY + 200);
  await executed(
    '/reward/badge',
    { app_id: appId, receiver: alice, badge_id: badge, amount: 2, action_id: 'first-win' },
    T0 + 3 * DAY,
  );
  await executed(
    '/reward/credit',
    { app_id: appId, receiver: alice, token_address: credit, amount: 2.5, mint: true, action_id: 'referral' },
    T0 + 3 * DAY + 1,
  );
});
afterAll(async () => {
  await laurel?.stop();
});

describe('GET /v1/profile', () => {
  it("answers an app's profile right after execute-and-wait: XP, badges, actions newest first, credit balances", async () => {
    const result = await profile(`user_id=${alice}&app_id=${appId}`);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      user_id: alice,
      xp_balance: '6.5',
      collected_badges: [{ id: badge, name: 'Gold', metadataURI: 'ipfs://gold/', metadata: null }],
      completed_actions: [
        { name: 'referral', xp_rewarded: '0', createdAt: String(T0 + 3 * DAY + 1) },
        { name: 'first-win', xp_rewarded: '0', createdAt: String(T0 + 3 * DAY) },
        { name: 'streak', xp_rewarded: '1.5', createdAt: String(T0 + 2 * DAY + 100) },
        { name: 'daily-login', xp_rewarded: '5', createdAt: String(T0 + 10) },
      ],
      credit_balances: [
        {
          token_id: credit,
          token_name: 'Credit',
          token_balance: '2500000',
          token_balance_formatted: '2.5',
          token_symbol: 'CRE',
          token_decimals: 6,
        },
        {
          token_id: points,
          token_name: 'Points',
          token_balance: '0',
          token_balance_formatted: '0',
          token_symbol: 'POI',
          token_decimals: 0,
        },
      ],
    });
  });

  it('without app_id sums XP across the apps on the chain and has no credit_balances', async () => {
    const result = await profile(`user_id=${alice}`);
    expect(result.status).toBe(200);
    expect(result.body.xp_balance).toBe('16.5');
    expect(result.body).not.toHaveProperty('credit_balances');
    expect((result.body.completed_actions as { name: string }[]).map((action) => action.name)).toEqual([
      'referral',
      'first-win',
      'elsewhere',
      'streak',
      'daily-login',
    ]);
  });

  it('defaults user_id to the caller, whose profile may be empty', async () => {
    const result = await profile('');
    expect(result.body).toEqual({
      user_id: owner.address,
      xp_balance: '0',
      collected_badges: [],
      completed_actions: [],
    });
  });

  it('answers 400 Shape C for invalid parameters and 404 for an unknown app', async () => {
    const invalid = await api.get('/profile?user_id=nope');
    expect(invalid.status).toBe(400);
    const issues = (invalid.body.error as { issues: { path: unknown[] }[] }).issues;
    expect(issues.map((issue) => issue.path)).toEqual([['chain'], ['user_id']]);
    const unknownApp = Wallet.createRandom().address;
    const unknown = await profile(`app_id=${unknownApp}`);
    expect(unknown).toEqual(
      expect.objectContaining({
        status: 404,
        body: { status: 'failed', error: 'App not found', app_id: unknownApp, chain: 'local' },
      }),
    );
  });
});

describe('GET /v1/leaderboard', () => {
  it('ranks XP of the app by amount, then address for ties, over all time by default', async () => {
    const result = await leaderboard(`app_id=${appId}`);
    expect(result.status).toBe(200);
    expect(result.body).toEqual([
      { user: carol, xp_rewarded: '7' },
      { user: alice, xp_rewarded: '6.5' },
      { user: bob, xp_rewarded: '3' },
      { user: dave, xp_rewarded: '3' },
    ]);
  });

  it('counts rewards at both inclusive ends of a window, across partial and whole days', async () => {
    const day1 = await leaderboard(`app_id=${appId}&start=${T0}&end=${T0 + DAY - 1}`);
    expect(day1.body).toEqual([
      { user: alice, xp_rewarded: '5' },
      { user: bob, xp_rewarded: '3' },
      { user: dave, xp_rewarded: '3' },
    ]);
    const aroundMidnight = await leaderboard(`app_id=${appId}&start=${T0 + DAY - 1}&end=${T0 + DAY}`);
    expect(aroundMidnight.body).toEqual([
      { user: carol, xp_rewarded: '7' },
      { user: bob, xp_rewarded: '3' },
    ]);
    const partialAndWhole = await leaderboard(`app_id=${appId}&start=${T0 + 50}&end=${T0 + 2 * DAY + 100}`);
    // alice's 5 at T0 + 10 is before the start; her 1.5 at exactly the end counts.
    expect(partialAndWhole.body).toEqual([
      { user: carol, xp_rewarded: '7' },
      { user: bob, xp_rewarded: '3' },
      { user: dave, xp_rewarded: '3' },
      { user: alice, xp_rewarded: '1.5' },
    ]);
    const onlyStart = await leaderboard(`app_id=${appId}&start=${T0 + 2 * DAY}`);
    expect(onlyStart.body).toEqual([{ user: alice, xp_rewarded: '1.5' }]);
  });

  it('pages with page and page_size', async () => {
    const second = await leaderboard(`app_id=${appId}&page=2&page_size=2`);
    expect(second.body).toEqual([
      { user: bob, xp_rewarded: '3' },
      { user: dave, xp_rewarded: '3' },
    ]);
    const beyond = await leaderboard(`app_id=${appId}&page=3&page_size=2`);
    expect(beyond.body).toEqual([]);
    const lastPage = await leaderboard(`app_id=${appId}&page=10000&page_size=100`);
    expect(lastPage).toMatchObject({ status: 200, body: [] });
    // Past the documented maxima (10000 pages of 100): the zod result, never a 500.
    const farBeyond = await leaderboard(`app_id=${appId}&page=${'9'.repeat(30)}&page_size=${'9'.repeat(30)}`);
    expect(farBeyond).toMatchObject({
      status: 400,
      body: {
        success: false,
        error: {
          issues: ['page', 'page_size'].map((param) => ({
            validation: 'regex',
            code: 'invalid_string',
            path: [param],
          })),
        },
      },
    });
  });

  it('without app_id ranks XP across apps; token_address (or its alias token_id) ranks another token', async () => {
    const all = await leaderboard('page_size=1');
    expect(all.body).toEqual([{ user: alice, xp_rewarded: '16.5' }]);
    const byCredit = await leaderboard(`token_address=${credit}`);
    expect(byCredit.body).toEqual([{ user: alice, xp_rewarded: '2.5' }]);
    const byAlias = await leaderboard(`token_id=${badge}`);
    expect(byAlias.body).toEqual([{ user: alice, xp_rewarded: '2' }]);
  });

  it('answers the zod result for non-digit start, end, page and page_size', async () => {
    const result = await leaderboard('start=-1&end=x&page=1.5&page_size=ten');
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      success: false,
      error: {
        issues: ['start', 'end', 'page', 'page_size'].map((param) => ({
          validation: 'regex',
          code: 'invalid_string',
          // The documented `Invalid`, and what was expected.
          message: expect.stringMatching(/^Invalid: expected .* in digits only, e\.g\. \d+$/),
          path: [param],
        })),
        name: 'ZodError',
      },
    });
  });
});

describe('leaderboard messages', () => {
  it('say what a parameter expects (a date given as start, a word as page)', async () => {
    const result = await leaderboard('start=2026-11-24&page=abc');
    expect(result.status).toBe(400);
    const messages = (result.body as { error: { issues: { message: string }[] } }).error.issues.map(
      (issue) => issue.message,
    );
    expect(messages).toEqual([
      'Invalid: expected seconds since the epoch in digits only, e.g. 1767225600',
      'Invalid: expected a page number from 1 to 10000 in digits only, e.g. 2',
    ]);
  });
});

describe('GraphQL profile and leaderboard', () => {
  it('answers a profile and a leaderboard with nested profiles in one request, as REST does', async () => {
    const result = await graphql<{
      profile: { xp_balance: string; collected_badges: { name: string }[] };
      leaderboard: { user: string; xp_rewarded: string; profile: { xp_balance: string } }[];
    }>(
      laurel.url,
      `
        query ($user: String!, $app: String!) {
          profile(chain: "local", user_id: $user, app_id: $app) {
            xp_balance
            collected_badges {
              name
            }
          }
          leaderboard(chain: "local", app_id: $app, page_size: 3) {
            user
            xp_rewarded
            profile {
              xp_balance
            }
          }
        }
      `,
      { variables: { user: alice, app: appId }, apiKey: ownerKey },
    );
    expect(result.body.errors).toBeUndefined();
    const rest = await profile(`user_id=${alice}&app_id=${appId}`);
    expect(result.body.data!.profile).toEqual({
      xp_balance: rest.body.xp_balance,
      collected_badges: [{ name: 'Gold' }],
    });
    expect(result.body.data!.leaderboard).toEqual([
      { user: carol, xp_rewarded: '7', profile: { xp_balance: '7' } },
      { user: alice, xp_rewarded: '6.5', profile: { xp_balance: '6.5' } },
      { user: bob, xp_rewarded: '3', profile: { xp_balance: '3' } },
    ]);
  });
});

/** A pool of its own on Laurel's database, for the tests of one describe block. */
function ownPool(): () => Pool {
  let pool: Pool | undefined;
  beforeAll(() => {
    pool = createTestPool(laurel.databaseUrl, 2);
  });
  afterAll(async () => {
    await pool?.end();
  });
  return () => pool!;
}

describe("leaderboard entries' profiles (GraphQL)", () => {
  it('loads the profiles asked for in one request together, in one batch', async () => {
    const service = laurel.modules.serviceOf(leaderboardModule);
    const profilesOf = jest.spyOn(service, 'profilesOf');
    const resolver = new LeaderboardResolver(service);
    const ctx: AuthenticatedContext = {
      requestId: 'test',
      log: createLogger('silent'),
      account: { address: alice, apiKeyId: 'test', scope: 'full', expiresAt: null },
      clientAddress: '127.0.0.1',
      logFields: {},
      labels: {},
    };
    try {
      const entries = (await operationRunner(resolver, LeaderboardResolver.prototype.leaderboard)(
        { chain: 'local', app_id: appId, page_size: '100' },
        ctx,
      )) as LeaderboardEntryInfo[];
      const byUser = new Map(entries.map((entry) => [entry.user, entry]));
      const loaded = await Promise.all(
        [alice, bob, carol].map((user) => resolver.profile(byUser.get(user)!)),
      );
      expect(profilesOf.mock.calls.map((call) => call[2])).toEqual([[alice, bob, carol]]);
      expect(loaded.map((entry) => entry.xp_balance)).toEqual(['6.5', '3', '7']);
    } finally {
      profilesOf.mockRestore();
    }
  });
});

describe('cached profiles and leaderboards', () => {
  // Runs last: its rewards (day 10) come after every other test's.
  const erin = Wallet.createRandom().address;
  const dayTen = () => `app_id=${appId}&start=${T0 + 10 * DAY}&end=${T0 + 11 * DAY - 1}`;
  const pool = ownPool();

  it('are answered again from memory until the index of their chain changes', async () => {
    expect(laurel.services.indexer.changes.listening).toBe(true);
    // Asked for twice: an answer is kept from the second time it is asked for.
    await profile(`user_id=${erin}&app_id=${appId}`);
    const before = await profile(`user_id=${erin}&app_id=${appId}`);
    expect(before.body).toMatchObject({ xp_balance: '0', completed_actions: [] });
    // Changed behind Laurel's back (no index commit reported): the cached answer stays.
    await pool().query(
      `INSERT INTO token_balances (chain_id, token_address, holder, balance)
       SELECT chain_id, xp_token, $2, 10 FROM indexed_apps WHERE address = $1`,
      [appId, erin],
    );
    expect((await profile(`user_id=${erin}&app_id=${appId}`)).body).toEqual(before.body);
    await pool().query('DELETE FROM token_balances WHERE holder = $1', [erin]);
  });

  it('show a reward right after execute-and-wait answered it (read-your-writes)', async () => {
    expect((await leaderboard(dayTen())).body).toEqual([]);
    await profile(`user_id=${erin}&app_id=${appId}`);
    await rewardXP(appId, erin, 2, 'late', T0 + 10 * DAY);
    expect((await profile(`user_id=${erin}&app_id=${appId}`)).body).toMatchObject({
      xp_balance: '2',
      completed_actions: [{ name: 'late', xp_rewarded: '2', createdAt: String(T0 + 10 * DAY) }],
    });
    expect((await leaderboard(dayTen())).body).toEqual([{ user: erin, xp_rewarded: '2' }]);
  });

  it('show what another process committed to the index once its notification arrives', async () => {
    const chain = laurel.services.chains.get('local');
    await laurel.chain!.provider.send('evm_setNextBlockTimestamp', [T0 + 10 * DAY + 60]);
    // Sent without Laurel, and ingested over a connection of "another process": only PostgreSQL's
    // notification can tell this one.
    const app = new Contract(appId, appInterface, owner);
    const sent = (await app.rewardXP(
      erin,
      parseEther('4'),
      encodeActionId('elsewhere'),
    )) as ContractTransactionResponse;
    const receipt = (await sent.wait())!;
    expect((await ingestReceiptLogs(pool(), chain, [receipt])).events).toBe(1);
    await waitUntil('the cached leaderboard to show the reward', async () => {
      const { body } = await leaderboard(dayTen());
      return JSON.stringify(body) === JSON.stringify([{ user: erin, xp_rewarded: '6' }]);
    });
    expect((await profile(`user_id=${erin}&app_id=${appId}`)).body).toMatchObject({ xp_balance: '6' });
  });
});

describe('leaderboard windows ranked from cached days', () => {
  const pool = ownPool();
  const FIRST = T0 + 20 * DAY; // after every other test's rewards
  const users = Array.from({ length: 12 }, () => Wallet.createRandom().address);
  let nextBlock = 50_000_000; // far above anvil's blocks: these rewards are written straight to the index
  /** A deterministic generator, so a failure can be replayed. */
  let state = 12345;
  const random = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];

  // The changes Laurel's read cache heard (it listens on this same feed, and is told first).
  const heard: (IndexChange | null)[] = [];
  beforeAll(() => laurel.services.indexer.changes.subscribe((change) => heard.push(change)));

  /**
   * Commits rewards of `token` through the index writer, with the change notification, over a
   * connection of this test: Laurel hears of it only as it hears of another process's commits.
   * Resolves once Laurel has heard it (a notification arrives after the commit, not with it).
   */
  async function commit(token: string, rewards: { user: string; amount: bigint; at: number }[]) {
    const before = heard.length;
    const chainId = laurel.services.chains.get('local').chainId;
    const events: IndexEvent[] = rewards.map((reward, i) => ({
      type: 'reward',
      app: appId,
      user: reward.user,
      token,
      kind: 'point',
      amount: reward.amount,
      actionName: 'synthetic',
      blockNumber: nextBlock + i,
      logIndex: 0,
      transactionHash: `0x${(nextBlock + i).toString(16).padStart(64, '0')}`,
    }));
    const blockTimes = new Map(events.map((event, i) => [event.blockNumber, rewards[i].at]));
    nextBlock += rewards.length;
    const db = await pool().connect();
    try {
      await db.query('BEGIN');
      const { rewardsFromDay } = await writeIndexEvents(db, chainId, events, blockTimes);
      await db.query('COMMIT');
      await waitUntil('Laurel to hear of the commit', async () =>
        heard.slice(before).some((change) => change?.rewardsFromDay === rewardsFromDay),
      );
    } finally {
      db.release();
    }
  }

  it('answers random windows, pages and tokens exactly as PostgreSQL sums them', async () => {
    const token = Wallet.createRandom().address;
    // 400 rewards over 8 days, some at midnight and in a day's last second, amounts that tie often.
    await commit(
      token,
      Array.from({ length: 400 }, () => {
        const day = FIRST + Math.floor(random() * 8) * DAY;
        return {
          user: pick(users),
          amount: pick([1n, 2n, 3n, 5n, 10n ** 20n]),
          at: day + pick([0, DAY - 1, Math.floor(random() * DAY)]),
        };
      }),
    );
    const sqlOnly = new LeaderboardService({
      chains: laurel.services.chains,
      index: new IndexReader(pool(), laurel.services.indexer.changes, 0),
      apps: laurel.modules.serviceOf(appsModule),
      profiles: laurel.modules.serviceOf(profileModule),
    });
    let ranked = 0;
    const edge = (from: number) => from + pick([0, 1, DAY - 1, Math.floor(random() * 8 * DAY)]);
    for (let i = 0; i < 150; i += 1) {
      // Synthetic token windows around days 20-27, and XP (of the app, of every app) around days 0-4.
      const [scope, origin] = pick([
        [{ token_address: token, app_id: undefined }, FIRST - DAY],
        [{ token_address: undefined, app_id: appId }, T0 - DAY],
        [{ token_address: undefined, app_id: undefined }, T0 - DAY],
      ] as const);
      const start = edge(origin + Math.floor(random() * 3) * DAY);
      const end = edge(start) - pick([0, 1]);
      const input = {
        chain: 'local',
        ...scope,
        start: random() < 0.1 ? undefined : start,
        end,
        page: pick([1, 1, 2, 3]),
        page_size: pick([1, 3, 10, 100]),
      };
      const query = Object.entries(input)
        .filter(([key, value]) => value !== undefined && key !== 'chain')
        .map(([key, value]) => `${key}=${value}`)
        .join('&');
      const answer = await leaderboard(query);
      expect({ query, body: answer.body }).toEqual({ query, body: await sqlOnly.leaderboard(input) });
      if (Array.isArray(answer.body) && answer.body.length > 1) ranked += 1;
    }
    expect(ranked).toBeGreaterThan(20); // many windows rank several users
  });

  it("keeps past days while later days change, and drops a day once another process's commit reaches it", async () => {
    const token = Wallet.createRandom().address;
    const [first, second, late] = users;
    await commit(token, [
      { user: first, amount: 4n, at: FIRST + DAY + 10 },
      { user: second, amount: 3n, at: FIRST + 2 * DAY + 10 },
    ]);
    // Whole days 21 and 22 and part of day 23 (an edge day), then day 23 alone (an edge).
    const past = `token_address=${token}&start=${FIRST + DAY}&end=${FIRST + 3 * DAY + 100}`;
    const later = `token_address=${token}&start=${FIRST + 5 * DAY}&end=${FIRST + 6 * DAY + 100}`;
    const body = (query: string) => leaderboard(query).then((answer) => JSON.stringify(answer.body));
    const expected = (entries: [string, string][]) =>
      JSON.stringify(entries.map(([user, xp_rewarded]) => ({ user, xp_rewarded })));
    // The past window as first read: days 21-23 before any change.
    const pastAsRead = expected([
      [first, '4'],
      [second, '3'],
    ]);
    expect(await body(past)).toBe(pastAsRead);
    expect(await body(later)).toBe('[]');

    // Changed behind Laurel's back (nothing notified): the cached days stay as they were read.
    await pool().query(
      `INSERT INTO reward_daily_totals (chain_id, token_address, day, user_address, amount)
       VALUES ($1, $2, $3::date, $4, 100)`,
      [
        laurel.services.chains.get('local').chainId,
        token,
        new Date((FIRST + DAY) * 1000).toISOString().slice(0, 10),
        late,
      ],
    );
    expect(await body(past)).toBe(pastAsRead);

    // A commit of a later day: once it is heard (the later window shows it), the past days are still cached.
    await commit(token, [{ user: late, amount: 1n, at: FIRST + 5 * DAY + 50 }]);
    await waitUntil(
      'the later window to show the commit',
      async () => (await body(later)) === expected([[late, '1']]),
    );
    expect(await body(past)).toBe(pastAsRead);

    // A commit of day 23 (the window's edge day) drops that day only: days 21-22 are still as read.
    await commit(token, [{ user: second, amount: 2n, at: FIRST + 3 * DAY + 5 }]);
    await waitUntil(
      'the past window to show the commit of day 23',
      async () =>
        (await body(past)) ===
        expected([
          [second, '5'],
          [first, '4'],
        ]),
    );
    // A commit of day 21 drops it and the run of days 21-22: now read again, with the row added behind Laurel's back.
    await commit(token, [{ user: first, amount: 2n, at: FIRST + DAY + 20 }]);
    await waitUntil(
      'the past window to show the commit of day 21',
      async () =>
        (await body(past)) ===
        expected([
          [late, '100'],
          [first, '6'],
          [second, '5'],
        ]),
    );
  });
});
