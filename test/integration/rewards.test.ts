import { Contract, Wallet, type ContractTransactionResponse, type Interface } from 'ethers';
import { revertHint } from '../../src/chain/reverts';
import {
  appFactoryInterface,
  appInterface,
  badgeInterface,
  creditTokenInterface,
  encodeActionId,
  xpTokenInterface,
} from '../../src/chain/contracts';
import { mined } from '../helpers/chain';
import {
  UNSIGNED_TX,
  client,
  eventArg,
  issueApiKeys,
  parsedEvent,
  type Body,
  type Client,
  type Unsigned,
} from '../helpers/flow';
import { graphql, startTestLaurel, type HttpResult, type TestLaurel } from '../helpers/laurel';

/**
 * The reward operations on anvil, through REST and GraphQL: build → sign with the caller's wallet
 * as given → execute-and-wait → check the chain; and every documented failure body.
 */
let laurel: TestLaurel;
let owner: Wallet;
let stranger: Wallet;
let ownerKey: string;
let strangerKey: string;
let api: Client; // the owner's
const receiver = Wallet.createRandom().address;

let appId: string;
let otherAppId: string;
let gold: string;
let twins: string[];
let credit: string; // 6 decimals, initial supply held by the owner
let points: string; // 2 decimals, point token
let otherCredit: string; // a credit token of another app

const contract = (address: string, iface: Interface) => new Contract(address, iface, laurel.chain!.provider);
const xpBalance = async (app: string, user: string) =>
  (await contract(await contract(app, appInterface).xpToken(), xpTokenInterface).balanceOf(user)) as bigint;
const tokenBalance = async (token: string, user: string) =>
  (await contract(token, creditTokenInterface).balanceOf(user)) as bigint;

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, owner, stranger] = laurel.chain!.wallets;
  [ownerKey, strangerKey] = await issueApiKeys(laurel.url, [owner, stranger]);
  api = client(laurel.url, ownerKey, owner);

  // Set-up straight on chain, with ethers.
  const createdBy = async (
    tx: Promise<ContractTransactionResponse>,
    iface: Interface,
    event: string,
    arg: string,
  ) => eventArg((await mined(tx)).logs, iface, event, arg);
  const factory = new Contract(laurel.chain!.factory, appFactoryInterface, owner);
  appId = await createdBy(factory.createApp('Rewards'), appFactoryInterface, 'AppCreated', 'app');
  otherAppId = await createdBy(factory.createApp('Other'), appFactoryInterface, 'AppCreated', 'app');
  const app = new Contract(appId, appInterface, owner);
  const created = (tx: Promise<ContractTransactionResponse>, event: string, arg: string) =>
    createdBy(tx, appInterface, event, arg);
  gold = await created(app.createBadge('Gold', 'ipfs://gold/'), 'BadgeCreated', 'badge');
  twins = [
    await created(app.createBadge('Twin', ''), 'BadgeCreated', 'badge'),
    await created(app.createBadge('Twin', ''), 'BadgeCreated', 'badge'),
  ];
  credit = await created(
    app.createCreditToken('Credit', 'CRD', 6, 1_000n * 10n ** 6n, false),
    'CreditTokenCreated',
    'token',
  );
  points = await created(app.createCreditToken('Points', 'PTS', 2, 0n, true), 'CreditTokenCreated', 'token');
  const other = new Contract(otherAppId, appInterface, owner);
  otherCredit = await created(
    other.createCreditToken('Other', 'OTH', 18, 0n, false),
    'CreditTokenCreated',
    'token',
  );
});
afterAll(async () => {
  await laurel?.stop();
});
/** An address that is no app of the local factory (404 bodies name it, checksummed, with the chain). */
const unknownApp = Wallet.createRandom().address;

describe('POST /reward/XP', () => {
  it('builds App.rewardXP from the caller; executed, it mints exact XP (18 decimals)', async () => {
    const result = await api.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      action_id: 'daily-login',
      receiver,
      amount: 1.5,
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ status: 'success', unsignedTransaction: UNSIGNED_TX });
    const unsigned = result.body.unsignedTransaction as Unsigned;
    expect(Object.keys(unsigned)).not.toContain('gas');
    expect(unsigned.to).toBe(appId);
    expect(unsigned.data).toBe(
      appInterface.encodeFunctionData('rewardXP', [
        receiver,
        1_500_000_000_000_000_000n,
        encodeActionId('daily-login'),
      ]),
    );
    const receipt = await api.execute(unsigned);
    const rewarded = parsedEvent(receipt.logs, appInterface, 'Rewarded');
    expect(rewarded.args.actionId).toBe(encodeActionId('daily-login'));
    expect(await xpBalance(appId, receiver)).toBe(1_500_000_000_000_000_000n);
  });

  it('GraphQL rewardXP runs the same operation', async () => {
    const before = await xpBalance(appId, receiver);
    const result = await graphql<{ rewardXP: { unsignedTransaction: Unsigned } }>(
      laurel.url,
      `
        mutation ($app: String!, $receiver: String!) {
          rewardXP(chain: "local", app_id: $app, action_id: "quest", receiver: $receiver, amount: 1e-7) {
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
      { apiKey: ownerKey, variables: { app: appId, receiver } },
    );
    expect(result.body.errors).toBeUndefined();
    const unsigned = result.body.data!.rewardXP.unsignedTransaction;
    expect(unsigned).toEqual({ ...UNSIGNED_TX, gas: null });
    await api.execute(unsigned);
    expect((await xpBalance(appId, receiver)) - before).toBe(100_000_000_000n);
  });

  it('GraphQL amounts are exact Decimals: every digit of a string survives, numbers are accepted too', async () => {
    const build = (amount: string) =>
      graphql<{ rewardXP: { unsignedTransaction: Unsigned } }>(
        laurel.url,
        `
          mutation ($app: String!, $receiver: String!, $amount: Decimal!) {
            rewardXP(chain: "local", app_id: $app, action_id: "exact", receiver: $receiver, amount: $amount) {
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
        { apiKey: ownerKey, variables: { app: appId, receiver, amount } },
      );
    const calldata = (wei: bigint) =>
      appInterface.encodeFunctionData('rewardXP', [receiver, wei, encodeActionId('exact')]);

    // A double would round this to 123456789.12345679. Each build is executed: a built transaction
    // holds its sender's nonce until it is sent.
    const before = await xpBalance(appId, receiver);
    const exact = await build('123456789.123456789123456789');
    expect(exact.body.errors).toBeUndefined();
    expect(exact.body.data!.rewardXP.unsignedTransaction.data).toBe(calldata(123456789_123456789123456789n));
    await api.execute(exact.body.data!.rewardXP.unsignedTransaction);

    const literal = await graphql<{ rewardXP: { unsignedTransaction: Unsigned } }>(
      laurel.url,
      `mutation { rewardXP(chain: "local", app_id: "${appId}", action_id: "exact", receiver: "${receiver}",
         amount: 0.000000000000000001) {
           unsignedTransaction { to data maxPriorityFeePerGas maxFeePerGas gasLimit nonce chainId type } } }`,
      { apiKey: ownerKey },
    );
    expect(literal.body.data!.rewardXP.unsignedTransaction.data).toBe(calldata(1n));
    await api.execute(literal.body.data!.rewardXP.unsignedTransaction);
    expect((await xpBalance(appId, receiver)) - before).toBe(123456789_123456789123456789n + 1n);

    const zero = await build('0.0');
    expect(zero.body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [expect.objectContaining({ code: 'too_small', path: ['amount'] })],
    });
    const tooFine = await build('1.0000000000000000001');
    expect(tooFine.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(tooFine.body.errors![0].message).toContain('more than 18 decimal places');
    for (const bad of ['-1', '1,5', 'abc', '']) {
      const refused = await build(bad);
      expect(refused.body.errors![0].message).toContain('Decimal');
    }
  });

  it('answers a stranger (not an operator) with a NotOperator transaction_error in Shape A (422)', async () => {
    const result = await api.post(
      '/reward/XP',
      { chain: 'local', app_id: appId, action_id: 'a', receiver, amount: 1 },
      strangerKey,
    );
    expect(result.status).toBe(422);
    const reason = `NotOperator(${stranger.address})`;
    const message = `The contract function "rewardXP" reverted with the following reason: ${reason}`;
    // The documented transaction_error as is; the top-level message adds what to do.
    const hinted = `${message}: ${revertHint('NotOperator')}`;
    expect(hinted).toContain('own or operate the app');
    expect(result.body).toEqual({
      status: 'failed',
      error: hinted,
      transaction_error: {
        reason,
        message,
        detailsMessage: expect.stringContaining('execution reverted'),
        contract_address: appId,
        chain_id: 31337,
        function_name: 'rewardXP',
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

    const gql = await graphql(
      laurel.url,
      `mutation { rewardXP(chain: "local", app_id: "${appId}", action_id: "a", receiver: "${receiver}", amount: 1) {
        unsignedTransaction { nonce } } }`,
      { apiKey: strangerKey },
    );
    expect(gql.body.errors![0]).toMatchObject({
      message: hinted,
      extensions: { code: 'TRANSACTION_ERROR', transaction_error: (result.body as Body).transaction_error },
    });
  });

  it('validates in the zod-result shape: fractions finer than 18 decimals, action ids over 32 bytes, the chain', async () => {
    const base = { chain: 'local', app_id: appId, action_id: 'a', receiver, amount: 1 };
    const zodIssues = (issues: unknown[]) => ({ success: false, error: { issues, name: 'ZodError' } });

    const fine = await api.post('/reward/XP', { ...base, amount: 1e-19 });
    expect(fine.status).toBe(400);
    expect(fine.body).toEqual(
      zodIssues([{ code: 'custom', path: ['amount'], message: 'amount has more than 18 decimal places' }]),
    );

    const bytes = await api.post('/reward/XP', { ...base, action_id: 'é'.repeat(17) }); // 17 characters, 34 bytes
    expect(bytes.status).toBe(400);
    expect(bytes.body).toEqual(
      zodIssues([
        { code: 'custom', path: ['action_id'], message: 'action_id must be at most 32 bytes in UTF-8' },
      ]),
    );
    const long = await api.post('/reward/XP', { ...base, action_id: 'x'.repeat(33) });
    expect(long.body).toEqual(
      zodIssues([
        {
          code: 'too_big',
          maximum: 32,
          type: 'string',
          inclusive: true,
          exact: false,
          message: 'String must contain at most 32 character(s)',
          path: ['action_id'],
        },
      ]),
    );

    const chain = await api.post('/reward/XP', { ...base, chain: 'nope' });
    expect(chain.status).toBe(400);
    expect(chain.body).toEqual(
      zodIssues([
        { code: 'custom', path: ['chain'], message: 'Unknown chain "nope"; this service serves: local' },
      ]),
    );

    const zero = await api.post('/reward/XP', { ...base, amount: 0 });
    expect(zero.body).toMatchObject(zodIssues([{ code: 'too_small', path: ['amount'] }]));

    const gql = await graphql(
      laurel.url,
      `mutation { rewardXP(chain: "local", app_id: "${appId}", action_id: "${'é'.repeat(17)}", receiver: "${receiver}", amount: 1) {
        unsignedTransaction { nonce } } }`,
      { apiKey: ownerKey },
    );
    expect(gql.body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [
        { code: 'custom', path: ['action_id'], message: 'action_id must be at most 32 bytes in UTF-8' },
      ],
    });
  });

  it('answers an unknown app with 404 Shape A', async () => {
    const result = await api.post('/reward/XP', {
      chain: 'local',
      app_id: unknownApp,
      action_id: 'a',
      receiver,
      amount: 1,
    });
    expect(result.status).toBe(404);
    expect(result.body).toEqual({
      status: 'failed',
      error: 'App not found',
      app_id: unknownApp,
      chain: 'local',
    });
  });
});

describe('POST /reward/badge', () => {
  const base = () => ({ chain: 'local', app_id: appId, action_id: 'first-win', receiver });

  it('mints badges by name with the base URI as token URI, or with the given URI', async () => {
    const byName = await api.post('/reward/badge', { ...base(), badge_name: 'Gold', amount: 2 });
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual({ status: 'success', unsignedTransaction: UNSIGNED_TX });
    const unsigned = byName.body.unsignedTransaction as Unsigned;
    expect(unsigned.data).toBe(
      appInterface.encodeFunctionData('rewardBadge', [gold, receiver, 2n, '', encodeActionId('first-win')]),
    );
    await api.execute(unsigned);
    const badge = contract(gold, badgeInterface);
    expect(await badge.balanceOf(receiver)).toBe(2n);
    expect(await badge.ownerOf(1n)).toBe(receiver);
    expect(await badge.tokenURI(2n)).toBe('ipfs://gold/2');

    const byId = await api.post('/reward/badge', {
      ...base(),
      badge_id: gold.toLowerCase(),
      amount: 1,
      base_uri: 'ipfs://special.json',
    });
    expect(byId.status).toBe(200);
    await api.execute(byId.body.unsignedTransaction as Unsigned);
    expect(await badge.balanceOf(receiver)).toBe(3n);
    expect(await badge.tokenURI(3n)).toBe('ipfs://special.json');

    // GET /badges counts holders from the index (execute-and-wait put these rewards there).
    const listed = await api.get(`/badges?chain=local&app_id=${appId}`);
    expect(
      (listed.body.badges as { id: string; holders: number }[]).find((b) => b.id === gold),
    ).toMatchObject({
      holders: 1,
    });
  });

  it('answers several badges of that name with Shape A, listing them', async () => {
    const result = await api.post('/reward/badge', { ...base(), badge_name: 'Twin', amount: 1 });
    expect(result.status).toBe(409);
    expect(result.body).toEqual({
      status: 'failed',
      error: 'Too many badges found with this name: give badge_id instead',
      badges: twins.map((id) => ({ id, name: 'Twin' })),
    });
    const ok = await api.post('/reward/badge', { ...base(), badge_id: twins[1], amount: 1 });
    expect(ok.status).toBe(200);
    await api.execute(ok.body.unsignedTransaction as Unsigned);
    expect(await contract(twins[1], badgeInterface).balanceOf(receiver)).toBe(1n);
  });

  it('answers more badges than one transaction can mint with a readable transaction_error, not a 500', async () => {
    const result = await api.post('/reward/badge', { ...base(), badge_name: 'Gold', amount: 1_000_000 });
    expect(result.status).toBe(422);
    const reason = 'execution reverted without a reason (out of gas or an invalid operation)';
    expect(result.body).toEqual({
      status: 'failed',
      error: `The contract function "rewardBadge" reverted with the following reason: ${reason}`,
      transaction_error: expect.objectContaining({
        reason,
        function_name: 'rewardBadge',
        contract_address: appId,
        chain_id: 31337,
        data: { abiItem: null, errorName: null },
      }),
    });
  });

  it('answers no such badge with Shape A 404', async () => {
    const byName = await api.post('/reward/badge', { ...base(), badge_name: 'Nope', amount: 1 });
    expect(byName.status).toBe(404);
    expect(byName.body).toEqual({ status: 'failed', error: 'No badge found with this name in this app' });
    const byId = await api.post('/reward/badge', {
      ...base(),
      badge_id: Wallet.createRandom().address,
      amount: 1,
    });
    expect(byId.status).toBe(404);
    expect(byId.body).toEqual({ status: 'failed', error: 'No badge found with this id in this app' });
    const app = await api.post('/reward/badge', {
      ...base(),
      app_id: unknownApp,
      badge_name: 'Gold',
      amount: 1,
    });
    expect(app.status).toBe(404);
    expect(app.body).toEqual({
      status: 'failed',
      error: 'App not found',
      app_id: unknownApp,
      chain: 'local',
    });
  });

  it('validates in the zod-result shape', async () => {
    const neither = await api.post('/reward/badge', { ...base(), amount: 1 });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({
      success: false,
      error: {
        issues: [{ code: 'custom', path: ['badge_name'], message: 'Give badge_name or badge_id' }],
        name: 'ZodError',
      },
    });
    const both = await api.post('/reward/badge', {
      ...base(),
      amount: 1,
      badge_name: 'Gold',
      badge_id: gold,
    });
    expect(both.body).toEqual({
      success: false,
      error: {
        issues: [{ code: 'custom', path: ['badge_id'], message: 'Give badge_name or badge_id, not both' }],
        name: 'ZodError',
      },
    });
    const fraction = await api.post('/reward/badge', { ...base(), amount: 1.5, badge_name: 'Gold' });
    expect(fraction.body).toEqual({
      success: false,
      error: {
        issues: [
          {
            code: 'invalid_type',
            expected: 'integer',
            received: 'float',
            message: 'Expected integer, received float',
            path: ['amount'],
          },
        ],
        name: 'ZodError',
      },
    });
    const missing = await api.post('/reward/badge', { chain: 'local', badge_name: 'Gold' });
    expect(missing.status).toBe(400);
    expect(
      (missing.body.error as { issues: { path: string[] }[] }).issues.map((issue) => issue.path[0]),
    ).toEqual(['action_id', 'receiver', 'app_id', 'amount']);
    const chain = await api.post('/reward/badge', {
      ...base(),
      chain: 'nope',
      amount: 1,
      badge_name: 'Gold',
    });
    expect(chain.body).toEqual({
      success: false,
      error: {
        issues: [
          { code: 'custom', path: ['chain'], message: 'Unknown chain "nope"; this service serves: local' },
        ],
        name: 'ZodError',
      },
    });
    const uri = await api.post('/reward/badge', {
      ...base(),
      amount: 1,
      badge_name: 'Gold',
      base_uri: 'u'.repeat(513),
    });
    expect(uri.body).toMatchObject({
      success: false,
      error: { issues: [{ code: 'too_big', path: ['base_uri'] }] },
    });
  });
});

describe('POST /reward/credit', () => {
  const base = () => ({
    chain: 'local',
    app_id: appId,
    action_id: 'referral',
    receiver,
    token_address: credit,
  });

  it('mints credit tokens with mint: true (exact decimals; `gas` included)', async () => {
    const result = await api.post('/reward/credit', { ...base(), amount: 2.5, mint: true });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      success: true,
      unsignedTransaction: { ...UNSIGNED_TX, gas: expect.any(String) },
    });
    const unsigned = result.body.unsignedTransaction as Unsigned;
    expect(unsigned.gas).toBe(unsigned.gasLimit);
    expect(unsigned.data).toBe(
      appInterface.encodeFunctionData('rewardCredit', [
        credit,
        receiver,
        2_500_000n,
        encodeActionId('referral'),
      ]),
    );
    await api.execute(unsigned);
    expect(await tokenBalance(credit, receiver)).toBe(2_500_000n);
  });

  it('transfers with App.transferERC20: without an allowance a transaction_error, with one the tokens move', async () => {
    const refused = await api.post('/reward/credit', { ...base(), amount: 1 });
    expect(refused.status).toBe(422);
    const reason = `ERC20InsufficientAllowance(${appId}, 0, 1000000)`;
    const message = `The contract function "transferERC20" reverted with the following reason: ${reason}`;
    const hinted = `${message}: ${revertHint('ERC20InsufficientAllowance')}`;
    expect(hinted).toContain('POST /v1/credit/approve');
    expect(hinted).toContain('mint: true');
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: 'transaction_error',
        message: hinted,
        transaction_error: {
          reason,
          message,
          detailsMessage: expect.stringContaining('execution reverted'),
          contract_address: appId,
          chain_id: 31337,
          function_name: 'transferERC20',
          data: {
            abiItem: {
              inputs: [
                { internalType: 'address', name: 'spender', type: 'address' },
                { internalType: 'uint256', name: 'allowance', type: 'uint256' },
                { internalType: 'uint256', name: 'needed', type: 'uint256' },
              ],
              name: 'ERC20InsufficientAllowance',
              type: 'error',
            },
            errorName: 'ERC20InsufficientAllowance',
          },
        },
      },
    });

    const token = new Contract(credit, creditTokenInterface, owner);
    await mined(token.approve(appId, 10n * 10n ** 6n));
    const ownerBefore = await tokenBalance(credit, owner.address);
    const receiverBefore = await tokenBalance(credit, receiver);
    const result = await api.post('/reward/credit', { ...base(), amount: 1.25, mint: false });
    expect(result.status).toBe(200);
    const unsigned = result.body.unsignedTransaction as Unsigned;
    expect(unsigned.data).toBe(
      appInterface.encodeFunctionData('transferERC20', [
        credit,
        receiver,
        1_250_000n,
        encodeActionId('referral'),
      ]),
    );
    await api.execute(unsigned);
    expect(await tokenBalance(credit, receiver)).toBe(receiverBefore + 1_250_000n);
    expect(await tokenBalance(credit, owner.address)).toBe(ownerBefore - 1_250_000n);
  });

  it('answers a token that is not a credit token of the app with token_not_found (Shape B 404)', async () => {
    const notFound = {
      success: false,
      error: { code: 'token_not_found', message: 'No credit token found with this address in this app' },
    };
    for (const token of [Wallet.createRandom().address, points, otherCredit, appId]) {
      const result = await api.post('/reward/credit', { ...base(), token_address: token, amount: 1 });
      expect(result.status).toBe(404);
      expect(result.body).toEqual(notFound);
    }
    const gql = await graphql(
      laurel.url,
      `mutation { rewardCredit(chain: "local", app_id: "${appId}", action_id: "a", receiver: "${receiver}",
        token_address: "${points}", amount: 1) { unsignedTransaction { nonce } } }`,
      { apiKey: ownerKey },
    );
    expect(gql.body.errors![0]).toMatchObject({
      message: notFound.error.message,
      extensions: { code: 'TOKEN_NOT_FOUND' },
    });
  });

  it('validates in Shape B: fractions finer than the token decimals, the chain, the fields', async () => {
    const fine = await api.post('/reward/credit', { ...base(), amount: 1.0000001 });
    expect(fine.status).toBe(400);
    expect(fine.body).toEqual({
      success: false,
      error: {
        code: 'validation_error',
        message: 'amount: amount has more than 6 decimal places',
        issues: [
          {
            code: 'custom',
            message: 'amount has more than 6 decimal places',
            parameter: 'amount',
            path: 'amount',
          },
        ],
      },
    });
    const chain = await api.post('/reward/credit', { ...base(), chain: 'nope', amount: 1 });
    expect(chain.status).toBe(400);
    const message = 'Unknown chain "nope"; this service serves: local';
    expect(chain.body).toEqual({
      success: false,
      error: {
        code: 'validation_error',
        message: `chain: ${message}`,
        issues: [{ code: 'custom', message, parameter: 'chain', path: 'chain' }],
      },
    });
    const fields = await api.post('/reward/credit', { ...base(), amount: 0, receiver: 'nobody' });
    expect(fields.status).toBe(400);
    expect(fields.body).toMatchObject({
      success: false,
      error: {
        code: 'validation_error',
        issues: [
          { code: 'invalid_string', parameter: 'receiver', path: 'receiver' },
          { code: 'too_small', parameter: 'amount', path: 'amount' },
        ],
      },
    });
    const app = await api.post('/reward/credit', {
      ...base(),
      app_id: unknownApp,
      amount: 1,
    });
    expect(app.status).toBe(404);
    expect(app.body).toEqual({
      success: false,
      error: { code: 'app_not_found', message: 'App not found', app_id: unknownApp, chain: 'local' },
    });
  });
});

describe('POST /reward/point', () => {
  const base = () => ({
    chain: 'local',
    app_id: appId,
    action_id: 'streak',
    receiver,
    token_address: points,
  });

  it('mints point tokens', async () => {
    const result = await api.post('/reward/point', { ...base(), amount: 3.25 });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ status: 'success', unsignedTransaction: UNSIGNED_TX });
    const unsigned = result.body.unsignedTransaction as Unsigned;
    expect(unsigned.data).toBe(
      appInterface.encodeFunctionData('rewardPoint', [points, receiver, 325n, encodeActionId('streak')]),
    );
    await api.execute(unsigned);
    expect(await tokenBalance(points, receiver)).toBe(325n);
  });

  it('answers an unknown or non-point token with Shape A', async () => {
    for (const token of [Wallet.createRandom().address, credit, otherCredit]) {
      const result = await api.post('/reward/point', { ...base(), token_address: token, amount: 1 });
      expect(result.status).toBe(404);
      expect(result.body).toEqual({
        status: 'failed',
        error: 'No token found: the address is not a point token of this app',
      });
    }
  });

  it('answers missing fields in the zod-result shape', async () => {
    const result = await api.post('/reward/point', { chain: 'local', app_id: appId, receiver, amount: 1 });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      success: false,
      error: {
        issues: [
          {
            code: 'invalid_type',
            expected: 'string',
            received: 'undefined',
            path: ['action_id'],
            message: 'Required',
          },
          {
            code: 'invalid_type',
            expected: 'string',
            received: 'undefined',
            path: ['token_address'],
            message: 'Required',
          },
        ],
        name: 'ZodError',
      },
    });
    const fine = await api.post('/reward/point', { ...base(), amount: 0.001 });
    expect(fine.body).toEqual({
      success: false,
      error: {
        issues: [{ code: 'custom', path: ['amount'], message: 'amount has more than 2 decimal places' }],
        name: 'ZodError',
      },
    });
  });
});

/** Records the JSON-RPC methods Laurel sends to the local chain while `work` runs, batch by batch (a block read as `eth_getBlockByNumber(<tag or number>)`). */
async function rpcBatches(work: () => Promise<unknown>): Promise<string[][]> {
  const provider = laurel.services.chains.get('local').provider;
  const batches: string[][] = [];
  const listener = (event: { action: string; payload?: unknown }) => {
    if (event.action === 'sendRpcPayload') {
      batches.push(
        [event.payload].flat().map((payload) => {
          const { method, params } = payload as { method: string; params: unknown[] };
          // Which block: the indexer reads headers by number and `finalized`; builds read `latest`.
          return method === 'eth_getBlockByNumber' ? `${method}(${String(params[0])})` : method;
        }),
      );
    }
  };
  await provider.on('debug', listener);
  try {
    await work();
  } finally {
    await provider.off('debug', listener);
  }
  return batches;
}

describe('transaction builder', () => {
  it("sends one build's RPC calls as one JSON-RPC batch, with gasLimit = estimate + 20 %", async () => {
    const body = { chain: 'local', app_id: appId, action_id: 'batched', receiver, amount: 2 };
    let result: HttpResult | undefined;
    const batches = await rpcBatches(async () => {
      result = await api.post('/reward/XP', body);
    });
    expect(result!.status).toBe(200);
    const unsigned = result!.body.unsignedTransaction as Unsigned;
    const build = batches.find((batch) => batch.includes('eth_estimateGas'));
    expect(build).toEqual(expect.arrayContaining(['eth_estimateGas', 'eth_getTransactionCount']));
    const estimate = await laurel.chain!.provider.estimateGas({
      from: owner.address,
      to: appId,
      data: unsigned.data as string,
    });
    expect(BigInt(unsigned.gasLimit as string)).toBe((estimate * 120n + 99n) / 100n);
    await api.execute(unsigned);
  });

  it('keeps gasLimit within what a block holds: a build whose estimate + 20 % would not fit executes', async () => {
    const fresh = Wallet.createRandom().address;
    const body = {
      chain: 'local',
      app_id: appId,
      action_id: 'many',
      receiver: fresh,
      amount: 1000,
      badge_id: gold,
    };
    const built = await api.post('/reward/badge', body);
    expect(built.status).toBe(200);
    const unsigned = built.body.unsignedTransaction as Unsigned;
    const { provider } = laurel.chain!;
    const { gasLimit: blockGasLimit } = (await provider.getBlock('latest'))!;
    const estimate = await provider.estimateGas({
      from: owner.address,
      to: appId,
      data: unsigned.data as string,
    });
    // The case at hand: 20 % on top of the estimate would be more than a block holds.
    expect((estimate * 120n) / 100n).toBeGreaterThan(blockGasLimit);
    // Capped at what the next block may hold (a block may lower the limit by 1/1024).
    expect(BigInt(unsigned.gasLimit as string)).toBe(blockGasLimit - blockGasLimit / 1024n);
    await api.execute(unsigned);
    expect(await contract(gold, badgeInterface).balanceOf(fresh)).toBe(1000n);
  });

  it('gives 20 parallel builds for one sender 20 distinct consecutive nonces, and all 20 execute', async () => {
    const pending = await laurel.chain!.provider.getTransactionCount(owner.address, 'pending');
    const before = await xpBalance(appId, receiver);
    let results: HttpResult[] = [];
    const started = performance.now();
    const batches = await rpcBatches(async () => {
      results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api.post('/reward/XP', {
            chain: 'local',
            app_id: appId,
            action_id: `parallel-${i}`,
            receiver,
            amount: 1,
          }),
        ),
      );
    });
    expect(results.map((result) => result.status)).toEqual(Array(20).fill(200));
    // Fee data comes from the per-chain cache: the latest block is read at most once a second (the
    // indexer's reads of other blocks, by number or `finalized`, are not the builds'), so at most
    // once more than the whole seconds the builds took (2 on an idle machine).
    const seconds = Math.floor((performance.now() - started) / 1000);
    const blockReads = batches.flat().filter((call) => call === 'eth_getBlockByNumber(latest)').length;
    expect(blockReads).toBeLessThanOrEqual(seconds + 2);
    const unsigned = results.map((result) => result.body.unsignedTransaction as Unsigned);
    expect(unsigned.map((tx) => tx.nonce as number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => pending + i),
    );
    await Promise.all(unsigned.map((tx) => api.execute(tx)));
    expect((await xpBalance(appId, receiver)) - before).toBe(20n * 10n ** 18n);
    expect(await laurel.chain!.provider.getTransactionCount(owner.address, 'latest')).toBe(pending + 20);
  });
});
