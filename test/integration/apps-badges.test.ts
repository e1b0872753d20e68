import { Contract, Wallet, getAddress } from 'ethers';
import { appFactoryInterface, appInterface, badgeInterface } from '../../src/chain/contracts';
import { issueApiKey } from '../helpers/auth';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * Apps and badges on anvil, through REST and GraphQL: build → sign with the caller's wallet as
 * given → execute-and-wait → check the chain and the listings.
 */
let laurel: TestLaurel;
let owner: Wallet;
let operator: Wallet;
let stranger: Wallet;
let ownerKey: string;
let operatorKey: string;
let strangerKey: string;

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

const UNSIGNED_TX = {
  to: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
  data: expect.stringMatching(/^0x[0-9a-f]+$/),
  maxPriorityFeePerGas: expect.stringMatching(/^\d+$/),
  maxFeePerGas: expect.stringMatching(/^\d+$/),
  gasLimit: expect.stringMatching(/^\d+$/),
  nonce: expect.any(Number),
  chainId: 31337,
  type: 2,
};

/** Signs the unsigned transaction exactly as given and sends it through execute-and-wait. */
async function execute(wallet: Wallet, apiKey: string, unsignedTransaction: Record<string, unknown>) {
  const signed = await wallet.signTransaction(unsignedTransaction);
  const result = await request<{
    status: string;
    receipt: { logs: { address: string; topics: string[]; data: string }[] };
  }>(laurel.url, 'POST', '/v1/transactions/execute-and-wait', {
    apiKey,
    body: { chain: 'local', signed_transaction: signed },
  });
  expect(result.status).toBe(200);
  expect(result.body.status).toBe('success');
  return result.body.receipt;
}

async function createApp(wallet: Wallet, apiKey: string, name: string): Promise<string> {
  const built = await request<{ unsignedTransaction: Record<string, unknown> }>(
    laurel.url,
    'POST',
    '/v1/app/new',
    {
      apiKey,
      body: { chain: 'local', name },
    },
  );
  expect(built.status).toBe(200);
  const receipt = await execute(wallet, apiKey, built.body.unsignedTransaction);
  const created = receipt.logs
    .map((log) => appFactoryInterface.parseLog(log))
    .find((parsed) => parsed?.name === 'AppCreated');
  return getAddress(created!.args.app as string);
}

async function createBadge(wallet: Wallet, apiKey: string, appId: string, name: string, baseUri?: string) {
  const built = await request<{ unsignedTransaction: Record<string, unknown> }>(
    laurel.url,
    'POST',
    '/v1/badge/new',
    {
      apiKey,
      body: {
        chain: 'local',
        app_id: appId,
        badge_name: name,
        ...(baseUri === undefined ? {} : { base_uri: baseUri }),
      },
    },
  );
  expect(built.status).toBe(200);
  const receipt = await execute(wallet, apiKey, built.body.unsignedTransaction);
  const created = receipt.logs
    .map((log) => appInterface.parseLog(log))
    .find((parsed) => parsed?.name === 'BadgeCreated');
  return getAddress(created!.args.badge as string);
}

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, owner, operator, stranger] = laurel.chain!.wallets;
  [ownerKey, operatorKey, strangerKey] = await Promise.all(
    [owner, operator, stranger].map((wallet) => issueApiKey(laurel.url, wallet)),
  );
});
afterAll(async () => {
  await laurel?.stop();
});

describe('apps', () => {
  let appId: string;

  it('POST /app/new builds AppFactory.createApp from the caller; the app is listed once executed', async () => {
    const built = await request(laurel.url, 'POST', '/v1/app/new', {
      apiKey: ownerKey,
      body: { chain: 'local', name: 'Quest' },
    });
    expect(built.status).toBe(200);
    expect(built.body).toEqual({ success: true, unsignedTransaction: UNSIGNED_TX });
    const unsigned = built.body.unsignedTransaction as Record<string, unknown>;
    expect(Object.keys(unsigned)).toEqual(UNSIGNED_FIELDS); // no `gas` here
    expect(unsigned.to).toBe(laurel.chain!.factory);
    expect(unsigned.data).toBe(appFactoryInterface.encodeFunctionData('createApp', ['Quest']));
    expect(unsigned.nonce).toBe(await laurel.chain!.provider.getTransactionCount(owner.address, 'pending'));

    const receipt = await execute(owner, ownerKey, unsigned);
    const created = receipt.logs
      .map((log) => appFactoryInterface.parseLog(log))
      .find((p) => p?.name === 'AppCreated');
    appId = getAddress(created!.args.app as string);
    const app = new Contract(appId, appInterface, laurel.chain!.provider);
    expect(await app.owner()).toBe(owner.address);

    const listed = await request(laurel.url, 'GET', '/v1/apps?chain=local', { apiKey: ownerKey });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      status: 'success',
      apps: [{ id: appId, name: 'Quest', owner: owner.address, xp_token: await app.xpToken() }],
    });
  });

  it('GET /apps lists only the apps the caller owns or operates', async () => {
    const other = await createApp(stranger, strangerKey, 'Stranger app');
    const ofStranger = await request(laurel.url, 'GET', '/v1/apps?chain=local', { apiKey: strangerKey });
    expect((ofStranger.body.apps as { id: string }[]).map((app) => app.id)).toEqual([other]);
    const ofOperator = await request(laurel.url, 'GET', '/v1/apps?chain=local', { apiKey: operatorKey });
    expect(ofOperator.body).toEqual({ status: 'success', apps: [] });

    // The owner makes `operator` an operator directly on chain.
    const app = new Contract(appId, appInterface, owner);
    await (await app.addOperator(operator.address)).wait();
    const after = await request(laurel.url, 'GET', '/v1/apps?chain=local', { apiKey: operatorKey });
    expect(after.body).toEqual({
      status: 'success',
      apps: [{ id: appId, name: 'Quest', owner: owner.address, xp_token: expect.any(String) }],
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
    await execute(owner, ownerKey, unsigned);

    const listed = await graphql<{ apps: { id: string; name: string; owner: string; xp_token: string }[] }>(
      laurel.url,
      'query { apps(chain: "local") { id name owner xp_token } }',
      { apiKey: ownerKey },
    );
    expect(listed.body.data!.apps.map((app) => app.name)).toEqual(['Quest', 'Via GraphQL']);
  });

  it('validates in Shape A, the unknown chain included', async () => {
    const empty = await request(laurel.url, 'POST', '/v1/app/new', {
      apiKey: ownerKey,
      body: { chain: 'local', name: '' },
    });
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
    const long = await request(laurel.url, 'POST', '/v1/app/new', {
      apiKey: ownerKey,
      body: { chain: 'local', name: 'x'.repeat(257) },
    });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ status: 'failed', issues: [{ code: 'too_big', path: ['name'] }] });

    const message = 'Unknown chain "nope"; this service serves: local';
    const chain = await request(laurel.url, 'POST', '/v1/app/new', {
      apiKey: ownerKey,
      body: { chain: 'nope', name: 'A' },
    });
    expect(chain.status).toBe(400);
    expect(chain.body).toEqual({
      status: 'failed',
      error: `chain: ${message}`,
      issues: [{ code: 'custom', path: ['chain'], message }],
    });
    const list = await request(laurel.url, 'GET', '/v1/apps?chain=nope', { apiKey: ownerKey });
    expect(list.status).toBe(400);
    expect(list.body).toEqual(chain.body);
    const missing = await request(laurel.url, 'GET', '/v1/apps', { apiKey: ownerKey });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      status: 'failed',
      issues: [{ code: 'invalid_type', path: ['chain'] }],
    });
  });

  it('needs an API key', async () => {
    const result = await request(laurel.url, 'POST', '/v1/app/new', { body: { chain: 'local', name: 'A' } });
    expect(result.status).toBe(401);
  });

  describe('badges', () => {
    it('POST /badge/new builds App.createBadge; GET /badges lists them with their base URI', async () => {
      const built = await request(laurel.url, 'POST', '/v1/badge/new', {
        apiKey: ownerKey,
        body: { chain: 'local', app_id: appId.toLowerCase(), badge_name: 'Gold', base_uri: 'ipfs://gold/' },
      });
      expect(built.status).toBe(200);
      expect(built.body).toEqual({ success: true, unsignedTransaction: UNSIGNED_TX });
      const unsigned = built.body.unsignedTransaction as Record<string, unknown>;
      expect(unsigned.to).toBe(appId);
      expect(unsigned.data).toBe(appInterface.encodeFunctionData('createBadge', ['Gold', 'ipfs://gold/']));
      const receipt = await execute(owner, ownerKey, unsigned);
      const gold = getAddress(
        receipt.logs.map((log) => appInterface.parseLog(log)).find((p) => p?.name === 'BadgeCreated')!.args
          .badge as string,
      );
      const onChain = new Contract(gold, badgeInterface, laurel.chain!.provider);
      expect(await onChain.name()).toBe('Gold');
      expect(await onChain.app()).toBe(appId);

      // An operator may create badges too; without base_uri the metadataURI is null.
      const plain = await createBadge(operator, operatorKey, appId, 'Plain');

      const listed = await request(laurel.url, 'GET', `/v1/badges?chain=local&app_id=${appId}`, {
        apiKey: strangerKey,
      });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        status: 'success',
        badges: [
          { id: gold, name: 'Gold', metadataURI: 'ipfs://gold/' },
          { id: plain, name: 'Plain', metadataURI: null },
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
      await execute(owner, ownerKey, built.body.data!.createBadge.unsignedTransaction);
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
      const create = await request(laurel.url, 'POST', '/v1/badge/new', {
        apiKey: ownerKey,
        body: { chain: 'local', app_id: unknown, badge_name: 'Gold' },
      });
      expect(create.status).toBe(404);
      expect(create.body).toEqual({ status: 'failed', error: 'App not found' });
      const list = await request(laurel.url, 'GET', `/v1/badges?chain=local&app_id=${unknown}`, {
        apiKey: ownerKey,
      });
      expect(list.status).toBe(404);
      expect(list.body).toEqual({ status: 'failed', error: 'App not found' });
      // The factory itself is a contract but not an app.
      const factory = await request(
        laurel.url,
        'GET',
        `/v1/badges?chain=local&app_id=${laurel.chain!.factory}`,
        {
          apiKey: ownerKey,
        },
      );
      expect(factory.status).toBe(404);

      const gql = await graphql(laurel.url, `query { badges(chain: "local", app_id: "${unknown}") { id } }`, {
        apiKey: ownerKey,
      });
      expect(gql.body.errors![0]).toMatchObject({
        message: 'App not found',
        extensions: { code: 'APP_NOT_FOUND' },
      });
    });

    it('answers a stranger (not an operator) with a NotOperator transaction_error', async () => {
      const result = await request(laurel.url, 'POST', '/v1/badge/new', {
        apiKey: strangerKey,
        body: { chain: 'local', app_id: appId, badge_name: 'Gold' },
      });
      expect(result.status).toBe(422);
      const reason = `NotOperator(${stranger.address})`;
      expect(result.body).toEqual({
        status: 'failed',
        error: `The contract function "createBadge" reverted with the following reason: ${reason}`,
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
        const result = await request(laurel.url, 'POST', '/v1/badge/new', {
          apiKey: ownerKey,
          body: { chain: 'local', app_id: appId, ...body },
        });
        expect(result.status).toBe(400);
        expect(result.body).toMatchObject({ status: 'failed', issues: [{ code, path: [field] }] });
      }
    });
  });

  it('answers 503 naming the chain when its node is down (last: stops the chain)', async () => {
    await laurel.chain!.anvil.stop();
    const build = await request(laurel.url, 'POST', '/v1/app/new', {
      apiKey: ownerKey,
      body: { chain: 'local', name: 'A' },
    });
    expect(build.status).toBe(503);
    expect(build.body).toEqual({
      status: 'failed',
      error: expect.stringMatching(/^Chain "local" is unavailable: /),
      chain: 'local',
    });
    const list = await request(laurel.url, 'GET', '/v1/apps?chain=local', { apiKey: ownerKey });
    expect(list.status).toBe(503);
  });
});
