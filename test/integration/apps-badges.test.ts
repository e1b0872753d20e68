import { Contract, Wallet } from 'ethers';
import { revertHint } from '../../src/chain/reverts';
import { appFactoryInterface, appInterface, badgeInterface } from '../../src/chain/contracts';
import { mined } from '../helpers/chain';
import {
  UNSIGNED_TX,
  client,
  createApp,
  eventArg,
  issueApiKeys,
  type Client,
  type Unsigned,
} from '../helpers/flow';
import { graphql, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * Apps and badges on anvil, through REST and GraphQL: build → sign with the caller's wallet as
 * given → execute-and-wait → check the chain and the listings.
 */
let laurel: TestLaurel;
let owner: Wallet;
let operator: Wallet;
let stranger: Wallet;
let ownerKey: string;
// Each caller's client: its API key, signing with its wallet.
let asOwner: Client;
let asOperator: Client;
let asStranger: Client;

const UNSIGNED_FIELDS = [
  'to',
  'data',
  'maxPriorityFeePerGas',
  'maxFeePerGas',
  'gasLimit',
  'nonce',
  'chainId',
  'type',
];

async function createBadge(api: Client, appId: string, name: string, baseUri?: string) {
  const built = await api.post('/badge/new', {
    chain: 'local',
    app_id: appId,
    badge_name: name,
    ...(baseUri === undefined ? {} : { base_uri: baseUri }),
  });
  expect(built.status).toBe(200);
  const receipt = await api.execute(built.body.unsignedTransaction as Unsigned);
  return eventArg(receipt.logs, appInterface, 'BadgeCreated', 'badge');
}

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, owner, operator, stranger] = laurel.chain!.wallets;
  const keys = await issueApiKeys(laurel.url, [owner, operator, stranger]);
  [ownerKey] = keys;
  [asOwner, asOperator, asStranger] = [owner, operator, stranger].map((wallet, i) =>
    client(laurel.url, keys[i], wallet),
  );
});
afterAll(async () => {
  await laurel?.stop();
});

describe('apps', () => {
  let appId: string;

  it('POST /app/new builds AppFactory.createApp from the caller; the app is listed once executed', async () => {
    const built = await asOwner.post('/app/new', { chain: 'local', name: 'Quest' });
    expect(built.status).toBe(200);
    expect(built.body).toEqual({ success: true, unsignedTransaction: UNSIGNED_TX });
    const unsigned = built.body.unsignedTransaction as Record<string, unknown>;
    expect(Object.keys(unsigned)).toEqual(UNSIGNED_FIELDS); // no `gas` here
    expect(unsigned.to).toBe(laurel.chain!.factory);
    expect(unsigned.data).toBe(appFactoryInterface.encodeFunctionData('createApp', ['Quest']));
    expect(unsigned.nonce).toBe(await laurel.chain!.provider.getTransactionCount(owner.address, 'pending'));

    const receipt = await asOwner.execute(unsigned);
    appId = eventArg(receipt.logs, appFactoryInterface, 'AppCreated', 'app');
    const app = new Contract(appId, appInterface, laurel.chain!.provider);
    expect(await app.owner()).toBe(owner.address);

    const listed = await asOwner.get('/apps?chain=local');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      status: 'success',
      apps: [
        { id: appId, name: 'Quest', owner: owner.address, xp_token: await app.xpToken(), operators: [] },
      ],
    });
  });

  it('GET /apps lists only the apps the caller owns or operates', async () => {
    const other = await createApp(asStranger, 'Stranger app');
    const ofStranger = await asStranger.get('/apps?chain=local');
    expect((ofStranger.body.apps as { id: string }[]).map((app) => app.id)).toEqual([other]);
    const ofOperator = await asOperator.get('/apps?chain=local');
    expect(ofOperator.body).toEqual({ status: 'success', apps: [] });

    // The owner makes `operator` an operator directly on chain: the listing (from the index of
    // contract events) shows it once the indexer has read that block.
    const app = new Contract(appId, appInterface, owner);
    await mined(app.addOperator(operator.address));
    const after = await waitUntil('the operator in the index', async () => {
      const listed = await asOperator.get('/apps?chain=local');
      return (listed.body.apps as unknown[]).length > 0 ? listed : undefined;
    });
    expect(after.body).toEqual({
      status: 'success',
      apps: [
        {
          id: appId,
          name: 'Quest',
          owner: owner.address,
          xp_token: expect.any(String),
          operators: [operator.address],
        },
      ],
    });
  });

  it('GraphQL createApp and apps run the same operations', async () => {
    const built = await graphql<{ createApp: { unsignedTransaction: Record<string, unknown> } }>(
      laurel.url,
      `
        mutation ($chain: String!, $name: String!) {
          createApp(chain: $chain, name: $name) {
            unsignedTransaction {
              to
              data
              maxPriorityFeePerGas
              maxFeePerGas
              gasLimit
              gas
              nonce
              chainId
              type
            }
          }
        }
      `,
      { apiKey: ownerKey, variables: { chain: 'local', name: 'Via GraphQL' } },
    );
    expect(built.body.errors).toBeUndefined();
    const unsigned = built.body.data!.createApp.unsignedTransaction;
    expect(unsigned).toEqual({ ...UNSIGNED_TX, gas: null });
    await asOwner.execute(unsigned);

    const listed = await graphql<{ apps: { id: string; name: string; owner: string; xp_token: string }[] }>(
      laurel.url,
      'query { apps(chain: "local") { id name owner xp_token } }',
      { apiKey: ownerKey },
    );
    expect(listed.body.data!.apps.map((app) => app.name)).toEqual(['Quest', 'Via GraphQL']);
  });

  it('validates in Shape A, the unknown chain included', async () => {
    const empty = await asOwner.post('/app/new', { chain: 'local', name: '' });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({
      status: 'failed',
      error: 'name: String must contain at least 1 character(s)',
      issues: [
        {
          code: 'too_small',
          minimum: 1,
          type: 'string',
          inclusive: true,
          exact: false,
          message: 'String must contain at least 1 character(s)',
          path: ['name'],
        },
      ],
    });
    const long = await asOwner.post('/app/new', { chain: 'local', name: 'x'.repeat(257) });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ status: 'failed', issues: [{ code: 'too_big', path: ['name'] }] });

    const message = 'Unknown chain "nope"; this service serves: local';
    const chain = await asOwner.post('/app/new', { chain: 'nope', name: 'A' });
    expect(chain.status).toBe(400);
    expect(chain.body).toEqual({
      status: 'failed',
      error: `chain: ${message}`,
      issues: [{ code: 'custom', path: ['chain'], message }],
    });
    const list = await asOwner.get('/apps?chain=nope');
    expect(list.status).toBe(400);
    expect(list.body).toEqual(chain.body);
    const missing = await asOwner.get('/apps');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      status: 'failed',
      issues: [{ code: 'invalid_type', path: ['chain'] }],
    });
  });

  it('needs an API key', async () => {
    const result = await client(laurel.url).post('/app/new', { chain: 'local', name: 'A' });
    expect(result.status).toBe(401);
  });

  describe('badges', () => {
    it('POST /badge/new builds App.createBadge; GET /badges lists them with their base URI', async () => {
      const built = await asOwner.post('/badge/new', {
        chain: 'local',
        app_id: appId.toLowerCase(),
        badge_name: 'Gold',
        base_uri: 'ipfs://gold/',
      });
      expect(built.status).toBe(200);
      expect(built.body).toEqual({ success: true, unsignedTransaction: UNSIGNED_TX });
      const unsigned = built.body.unsignedTransaction as Record<string, unknown>;
      expect(unsigned.to).toBe(appId);
      expect(unsigned.data).toBe(appInterface.encodeFunctionData('createBadge', ['Gold', 'ipfs://gold/']));
      const receipt = await asOwner.execute(unsigned);
      const gold = eventArg(receipt.logs, appInterface, 'BadgeCreated', 'badge');
      const onChain = new Contract(gold, badgeInterface, laurel.chain!.provider);
      expect(await onChain.name()).toBe('Gold');
      expect(await onChain.app()).toBe(appId);

      // An operator may create badges too; without base_uri the metadataURI is null.
      const plain = await createBadge(asOperator, appId, 'Plain');

      const listed = await asStranger.get(`/badges?chain=local&app_id=${appId}`);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        status: 'success',
        badges: [
          // No metadata here: the test gateway is refused (test/integration/badge-metadata.test.ts fetches some).
          { id: gold, name: 'Gold', metadataURI: 'ipfs://gold/', metadata: null, holders: 0 },
          { id: plain, name: 'Plain', metadataURI: null, metadata: null, holders: 0 },
        ],
      });
    });

    it('GraphQL createBadge and badges', async () => {
      const built = await graphql<{ createBadge: { unsignedTransaction: Record<string, unknown> } }>(
        laurel.url,
        `
          mutation ($app: String!) {
            createBadge(chain: "local", app_id: $app, badge_name: "Silver", base_uri: null) {
              unsignedTransaction {
                to
                data
                maxPriorityFeePerGas
                maxFeePerGas
                gasLimit
                nonce
                chainId
                type
              }
            }
          }
        `,
        { apiKey: ownerKey, variables: { app: appId } },
      );
      expect(built.body.errors).toBeUndefined();
      await asOwner.execute(built.body.data!.createBadge.unsignedTransaction);
      const listed = await graphql<{ badges: { id: string; name: string; metadataURI: string | null }[] }>(
        laurel.url,
        'query ($app: String!) { badges(chain: "local", app_id: $app) { id name metadataURI } }',
        { apiKey: ownerKey, variables: { app: appId } },
      );
      expect(listed.body.data!.badges.map((badge) => [badge.name, badge.metadataURI])).toEqual([
        ['Gold', 'ipfs://gold/'],
        ['Plain', null],
        ['Silver', null],
      ]);
    });

    it('answers an unknown app with 404 {status:"failed", error:"App not found"}', async () => {
      const unknown = Wallet.createRandom().address;
      const create = await asOwner.post('/badge/new', {
        chain: 'local',
        app_id: unknown,
        badge_name: 'Gold',
      });
      expect(create.status).toBe(404);
      const notFound = { status: 'failed', error: 'App not found', app_id: unknown, chain: 'local' };
      expect(create.body).toEqual(notFound);
      const list = await asOwner.get(`/badges?chain=local&app_id=${unknown}`);
      expect(list.status).toBe(404);
      expect(list.body).toEqual(notFound);
      // The factory itself is a contract but not an app.
      const factory = await asOwner.get(`/badges?chain=local&app_id=${laurel.chain!.factory}`);
      expect(factory.status).toBe(404);

      const gql = await graphql(laurel.url, `query { badges(chain: "local", app_id: "${unknown}") { id } }`, {
        apiKey: ownerKey,
      });
      expect(gql.body.errors![0]).toMatchObject({
        message: 'App not found',
        extensions: { code: 'APP_NOT_FOUND', app_id: unknown, chain: 'local' },
      });
    });

    it('answers a stranger (not an operator) with a NotOperator transaction_error', async () => {
      const result = await asStranger.post('/badge/new', {
        chain: 'local',
        app_id: appId,
        badge_name: 'Gold',
      });
      expect(result.status).toBe(422);
      const reason = `NotOperator(${stranger.address})`;
      expect(result.body).toEqual({
        status: 'failed',
        error: `The contract function "createBadge" reverted with the following reason: ${reason}: ${revertHint('NotOperator')}`,
        transaction_error: {
          reason,
          message: `The contract function "createBadge" reverted with the following reason: ${reason}`,
          detailsMessage: expect.stringContaining('execution reverted'),
          contract_address: appId,
          chain_id: 31337,
          function_name: 'createBadge',
          data: {
            abiItem: {
              inputs: [{ internalType: 'address', name: 'caller', type: 'address' }],
              name: 'NotOperator',
              type: 'error',
            },
            errorName: 'NotOperator',
          },
        },
      });
    });

    it('validates badge_name, base_uri and app_id in Shape A', async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ badge_name: '' }, 'badge_name', 'too_small'],
        [{ badge_name: 'x'.repeat(257) }, 'badge_name', 'too_big'],
        [{ badge_name: 'A', base_uri: 'u'.repeat(513) }, 'base_uri', 'too_big'],
        [{ badge_name: 'A', app_id: '0x1234' }, 'app_id', 'invalid_string'],
      ];
      for (const [body, field, code] of cases) {
        const result = await asOwner.post('/badge/new', { chain: 'local', app_id: appId, ...body });
        expect(result.status).toBe(400);
        expect(result.body).toMatchObject({ status: 'failed', issues: [{ code, path: [field] }] });
      }
    });
  });

  it('answers 503 naming the chain when its node is down (last: stops the chain)', async () => {
    await laurel.chain!.anvil.stop();
    const build = await asOwner.post('/app/new', { chain: 'local', name: 'A' });
    expect(build.status).toBe(503);
    expect(build.body).toEqual({
      status: 'failed',
      error: expect.stringMatching(/^Chain "local" is unavailable: /),
      chain: 'local',
    });
    // Listings come from the index: they still answer while the node is down.
    const list = await asOwner.get('/apps?chain=local');
    expect(list.status).toBe(200);
  });
});

describe('an app the index has not reached yet', () => {
  let unindexed: TestLaurel;
  let key: string;
  let wallet: Wallet;

  beforeAll(async () => {
    // No `indexer` role: an app created on chain by other means than execute-and-wait stays unindexed.
    unindexed = await startTestLaurel({ chain: true, env: { LAUREL_ROLES: 'api,worker' } });
    wallet = unindexed.chain!.wallets[6];
    [key] = await issueApiKeys(unindexed.url, [wallet]);
  });
  afterAll(async () => {
    await unindexed?.stop();
  });

  it('is an app for every operation at once: the factory on chain is the one rule', async () => {
    const factory = new Contract(
      unindexed.services.chains.get('local').factoryAddress,
      appFactoryInterface,
      wallet,
    );
    const receipt = await mined(factory.createApp('Fresh'));
    const appId = eventArg(receipt.logs, appFactoryInterface, 'AppCreated', 'app');
    const api = client(unindexed.url, key, wallet);

    const profile = await api.get(`/profile?chain=local&app_id=${appId}`);
    expect(profile).toMatchObject({
      status: 200,
      body: {
        user_id: wallet.address,
        xp_balance: '0',
        collected_badges: [],
        completed_actions: [],
        credit_balances: [],
      },
    });
    expect(await api.get(`/leaderboard?chain=local&app_id=${appId}`)).toMatchObject({
      status: 200,
      body: [],
    });
    const reward = await api.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      action_id: 'first',
      receiver: wallet.address,
      amount: 1,
    });
    expect(reward.status).toBe(200);
    // Not an app at all: still 404 everywhere.
    const stranger = Wallet.createRandom().address;
    expect(await api.get(`/profile?chain=local&app_id=${stranger}`)).toMatchObject({
      status: 404,
      body: { status: 'failed', error: 'App not found' },
    });
  });
});
