import { Contract, Wallet, type ContractTransactionResponse } from 'ethers';
import { revertHint } from '../../src/chain/reverts';
import { appInterface } from '../../src/chain/contracts';
import { mined } from '../helpers/chain';
import {
  UNSIGNED_TX,
  client,
  createApp,
  createCreditToken,
  issueApiKeys,
  parsedEvent,
  type Client,
  type Unsigned,
} from '../helpers/flow';
import { graphql, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * App operators on anvil, through REST and GraphQL: the owner builds addOperator and signs it; the
 * operator, with its own API key and wallet, rewards (build, sign, execute and wait); the
 * `transaction` event goes to the operator's account, the app's leaderboard counts the reward;
 * removeOperator takes it all back. Refusals: a non-owner's build, a second add, a remove of a
 * wallet that is no operator, an unknown app, a bad address. Last, a reorganisation takes an
 * operator out of the index again.
 */
let laurel: TestLaurel;
let receiver: WebhookReceiver;
let owner: Wallet;
let operator: Wallet;
let stranger: Wallet;
let gqlOperator: Wallet;
let ownerKey: string;
let gqlOperatorKey: string;
let asOwner: Client;
let asOperator: Client;
let asStranger: Client;
/** The receiver paths of the owner's and the operators' webhooks. */
const hooks = { owner: '/owner', operator: '/operator', gqlOperator: '/gql-operator' };

/** A verified webhook of the key's account for `transaction` events, at `path` of the receiver. */
async function verifiedWebhook(api: Client, path: string): Promise<void> {
  receiver.route(path, answerChallenge());
  const created = await api.post('/webhook', { url: receiver.url(path), events: ['transaction'] });
  expect(created.status).toBe(201);
  const id = (created.body.webhook as { id: number }).id;
  expect((await api.post(`/webhook/${id}/test`, {})).status).toBe(200);
}

/** The `transaction` events the receiver got at `path`, by the hash of their receipt. */
function deliveredHashes(path: string): string[] {
  return receiver.calls
    .filter((call) => call.path === path)
    .map((call) => JSON.parse(call.body) as { event: string; payload: { hash: string } | null })
    .filter((body) => body.event === 'transaction')
    .map((body) => body.payload!.hash);
}

/** The accounts the chain's `transaction` webhook events for `hash` were recorded for. */
async function eventAccountsOf(hash: string): Promise<string[]> {
  const events = await laurel.services.prisma.webhookEvent.findMany({
    where: { event: 'transaction', payload: { path: ['hash'], equals: hash } },
  });
  return events.map((event) => event.accountAddress);
}

const operatorsOf = async (api: Client, appId: string) => {
  const listed = await api.get('/apps?chain=local');
  expect(listed.status).toBe(200);
  return (listed.body.apps as { id: string; operators: string[] }[]).find((app) => app.id === appId)
    ?.operators;
};

/** The transaction_error of a simulated App `functionName` reverting with `errorName(address)`. */
function revertOf(appId: string, functionName: string, errorName: string, address: string, param: string) {
  const reason = `${errorName}(${address})`;
  const message = `The contract function "${functionName}" reverted with the following reason: ${reason}`;
  return {
    message: `${message}: ${revertHint(errorName)}`,
    transaction_error: {
      reason,
      message,
      detailsMessage: expect.stringContaining('execution reverted'),
      contract_address: appId,
      chain_id: 31337,
      function_name: functionName,
      data: {
        abiItem: {
          inputs: [{ internalType: 'address', name: param, type: 'address' }],
          name: errorName,
          type: 'error',
        },
        errorName,
      },
    },
  };
}

beforeAll(async () => {
  [laurel, receiver] = await Promise.all([
    startTestLaurel({ chain: true, env: { RATE_LIMIT_MAX_REQUESTS: '100000' } }),
    startWebhookReceiver(),
  ]);
  [, owner, operator, stranger, gqlOperator] = laurel.chain!.wallets;
  const keys = await issueApiKeys(laurel.url, [owner, operator, stranger, gqlOperator]);
  [ownerKey, , , gqlOperatorKey] = keys;
  [asOwner, asOperator, asStranger] = [owner, operator, stranger].map((wallet, i) =>
    client(laurel.url, keys[i], wallet),
  );
  await verifiedWebhook(asOwner, hooks.owner);
  await verifiedWebhook(asOperator, hooks.operator);
  await verifiedWebhook(client(laurel.url, gqlOperatorKey), hooks.gqlOperator);
});
afterAll(async () => {
  await Promise.all([laurel?.stop(), receiver?.stop()]);
});

describe('REST', () => {
  let appId: string;
  const user = Wallet.createRandom().address;
  let rewardHash: string;

  beforeAll(async () => {
    appId = await createApp(asOwner, 'Operated');
  });

  it('POST /app/operator/add builds App.addOperator for the owner; once mined the app lists the operator', async () => {
    const built = await asOwner.post('/app/operator/add', {
      chain: 'local',
      app_id: appId,
      operator_address: operator.address.toLowerCase(),
    });
    expect(built.status).toBe(200);
    expect(built.body).toEqual({ success: true, unsignedTransaction: UNSIGNED_TX });
    const unsigned = built.body.unsignedTransaction as Unsigned;
    expect(unsigned.to).toBe(appId);
    expect(unsigned.data).toBe(appInterface.encodeFunctionData('addOperator', [operator.address]));

    const receipt = await asOwner.execute(unsigned);
    expect(parsedEvent(receipt.logs, appInterface, 'OperatorAdded').args.operator).toBe(operator.address);
    expect(await new Contract(appId, appInterface, laurel.chain!.provider).isOperator(operator.address)).toBe(
      true,
    );
    // execute-and-wait put the receipt's events in the index: the listing shows them at once.
    expect(await operatorsOf(asOwner, appId)).toEqual([operator.address]);
    expect(await operatorsOf(asOperator, appId)).toEqual([operator.address]);
    const listed = await asOperator.get('/apps?chain=local');
    expect(listed.body).toEqual({
      status: 'success',
      apps: [
        {
          id: appId,
          name: 'Operated',
          owner: owner.address,
          xp_token: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
          operators: [operator.address],
        },
      ],
    });
  });

  it('the operator rewards with its own key and wallet: its account gets the transaction event, the app leaderboard the reward', async () => {
    const built = await asOperator.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      action_id: 'season-1',
      receiver: user,
      amount: 7,
    });
    expect(built.status).toBe(200);
    const receipt = await asOperator.execute(built.body.unsignedTransaction as Unsigned);
    const rewarded = parsedEvent(receipt.logs, appInterface, 'Rewarded');
    expect(rewarded.args.app).toBe(appId);
    expect(rewarded.args.receiver).toBe(user);
    rewardHash = (receipt as unknown as { hash: string }).hash;

    // The transaction is the signer's: its event goes to the operator's webhooks, none to the owner's.
    await waitUntil('the operator’s webhook called', () =>
      deliveredHashes(hooks.operator).includes(rewardHash),
    );
    const call = receiver.calls.find(
      (c) =>
        c.path === hooks.operator &&
        (JSON.parse(c.body) as { payload?: { hash?: string } }).payload?.hash === rewardHash,
    )!;
    expect(JSON.parse(call.body)).toMatchObject({
      event: 'transaction',
      payload: {
        _type: 'TransactionReceipt',
        hash: rewardHash,
        status: 1,
        from: operator.address,
        to: appId,
      },
    });
    // The event is recorded for every account it is for in the statement that records the receipt.
    expect(await eventAccountsOf(rewardHash)).toEqual([operator.address]);
    expect(deliveredHashes(hooks.owner)).not.toContain(rewardHash);
    // Its status is the operator's to read, not the owner's.
    expect((await asOperator.get(`/transactions/${rewardHash}?chain=local`)).body).toMatchObject({
      status: 'success',
      transactionHash: rewardHash,
    });
    expect((await asOwner.get(`/transactions/${rewardHash}?chain=local`)).status).toBe(404);

    const leaderboard = await asOwner.get(`/leaderboard?chain=local&app_id=${appId}`);
    expect(leaderboard.status).toBe(200);
    expect(leaderboard.body).toEqual([{ user, xp_rewarded: '7' }]);
    const profile = await asOwner.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`);
    expect(profile.body).toMatchObject({
      xp_balance: '7',
      completed_actions: [{ name: 'season-1', xp_rewarded: '7', createdAt: expect.stringMatching(/^\d+$/) }],
    });
  });

  it('the operator creates a badge and a point token and rewards with them, and mints and transfers credit', async () => {
    const badgeBuilt = await asOperator.post('/badge/new', {
      chain: 'local',
      app_id: appId,
      badge_name: 'Hot',
    });
    expect(badgeBuilt.status).toBe(200);
    await asOperator.execute(badgeBuilt.body.unsignedTransaction as Unsigned);
    const points = await createCreditToken(asOperator, appId, {
      token_name: 'Hot points',
      token_symbol: 'HOT',
      token_supply: 0,
      token_decimals: 0,
      token_is_point: true,
    });
    const credit = await createCreditToken(asOperator, appId, {
      token_name: 'Hot credit',
      token_symbol: 'HCR',
      token_supply: 5,
      token_decimals: 2,
      token_is_point: false,
    });
    const base = { chain: 'local', app_id: appId, receiver: user };
    for (const [path, body] of [
      ['/reward/badge', { ...base, action_id: 'badge', badge_name: 'Hot', amount: 1 }],
      ['/reward/point', { ...base, action_id: 'points', token_address: points, amount: 3 }],
      ['/reward/credit', { ...base, action_id: 'credit', token_address: credit, amount: 1.25, mint: true }],
      // Without mint, the operator's own credit moves (its initial supply), once it approved the app.
      [
        '/credit/approve',
        {
          chain: 'local',
          token_id: credit,
          holder_address: operator.address,
          spender_address: appId,
          amount: 2,
        },
      ],
      ['/reward/credit', { ...base, action_id: 'transfer', token_address: credit, amount: 2 }],
    ] as const) {
      const built = await asOperator.post(path, body);
      expect(built.status).toBe(200);
      await asOperator.execute(built.body.unsignedTransaction as Unsigned);
    }
    const profile = await asOwner.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`);
    expect(profile.body).toMatchObject({
      collected_badges: [{ name: 'Hot' }],
      credit_balances: expect.arrayContaining([
        expect.objectContaining({ token_id: points, token_balance: '3' }),
        expect.objectContaining({ token_id: credit, token_balance: '325', token_balance_formatted: '3.25' }),
      ]),
    });
    const pointBoard = await asOwner.get(`/leaderboard?chain=local&app_id=${appId}&token_address=${points}`);
    expect(pointBoard.body).toEqual([{ user, xp_rewarded: '3' }]);
  });

  it('refuses, in Shape B: another sender NotOwner (the operator too), a second add AlreadyOperator, the owner AlreadyOperator', async () => {
    const body = { chain: 'local', app_id: appId, operator_address: stranger.address };
    for (const [api, sender] of [
      [asStranger, stranger],
      [asOperator, operator],
    ] as const) {
      const refused = await api.post('/app/operator/add', body);
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({
        success: false,
        error: {
          code: 'transaction_error',
          ...revertOf(appId, 'addOperator', 'NotOwner', sender.address, 'caller'),
        },
      });
    }
    for (const already of [operator.address, owner.address]) {
      const refused = await asOwner.post('/app/operator/add', { ...body, operator_address: already });
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({
        success: false,
        error: {
          code: 'transaction_error',
          ...revertOf(appId, 'addOperator', 'AlreadyOperator', already, 'operator'),
        },
      });
    }
    const unknown = await asOwner.post('/app/operator/remove', body);
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      success: false,
      error: {
        code: 'transaction_error',
        ...revertOf(appId, 'removeOperator', 'UnknownOperator', stranger.address, 'operator'),
      },
    });
    const byStranger = await asStranger.post('/app/operator/remove', {
      ...body,
      operator_address: operator.address,
    });
    expect(byStranger.body).toMatchObject({
      success: false,
      error: { code: 'transaction_error', transaction_error: { reason: `NotOwner(${stranger.address})` } },
    });
  });

  it('validates in Shape B, and answers an address that is no app 404 app_not_found', async () => {
    const invalid = await asOwner.post('/app/operator/add', {
      chain: 'local',
      app_id: appId,
      operator_address: '0x12',
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      success: false,
      error: {
        code: 'validation_error',
        message: expect.stringContaining('operator_address'),
        issues: [
          {
            code: 'invalid_string',
            message: 'Invalid address',
            parameter: 'operator_address',
            path: 'operator_address',
          },
        ],
      },
    });
    const missing = await asOwner.post('/app/operator/remove', { chain: 'local', app_id: appId });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      success: false,
      error: { code: 'validation_error', issues: [{ code: 'invalid_type', parameter: 'operator_address' }] },
    });
    const noApp = Wallet.createRandom().address;
    const notFound = await asOwner.post('/app/operator/add', {
      chain: 'local',
      app_id: noApp,
      operator_address: operator.address,
    });
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({
      success: false,
      error: { code: 'app_not_found', message: 'App not found', app_id: noApp, chain: 'local' },
    });
  });

  it('POST /app/operator/remove: once mined the listing drops the operator, and its builds revert NotOperator', async () => {
    // A reward the operator signed before its removal but sends after it.
    const early = await asOperator.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      action_id: 'late',
      receiver: user,
      amount: 1,
    });
    expect(early.status).toBe(200);

    const built = await asOwner.post('/app/operator/remove', {
      chain: 'local',
      app_id: appId,
      operator_address: operator.address,
    });
    expect(built.status).toBe(200);
    expect((built.body.unsignedTransaction as Unsigned).data).toBe(
      appInterface.encodeFunctionData('removeOperator', [operator.address]),
    );
    const receipt = await asOwner.execute(built.body.unsignedTransaction as Unsigned);
    expect(parsedEvent(receipt.logs, appInterface, 'OperatorRemoved').args.operator).toBe(operator.address);

    expect(await operatorsOf(asOwner, appId)).toEqual([]);
    expect((await asOperator.get('/apps?chain=local')).body).toEqual({ status: 'success', apps: [] });

    const refused = await asOperator.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      action_id: 'after',
      receiver: user,
      amount: 1,
    });
    expect(refused.status).toBe(422);
    const reason = `NotOperator(${operator.address})`;
    expect(refused.body).toMatchObject({
      status: 'failed',
      error: `The contract function "rewardXP" reverted with the following reason: ${reason}: ${revertHint('NotOperator')}`,
      transaction_error: { reason, function_name: 'rewardXP', data: { errorName: 'NotOperator' } },
    });

    // The transaction signed while it was an operator reverts on chain now: no reward.
    const signed = await operator.signTransaction(early.body.unsignedTransaction as Unsigned);
    const executed = await asOperator.post('/transactions/execute-and-wait', {
      chain: 'local',
      signed_transaction: signed,
    });
    expect(executed.body).toMatchObject({ status: 'failed', receipt: { status: 0 } });
    expect((await asOwner.get(`/leaderboard?chain=local&app_id=${appId}`)).body).toEqual([
      { user, xp_rewarded: '7' },
    ]);
    // The owner's webhook got its own transactions (createApp, addOperator, removeOperator), never the operator's.
    const removeHash = (receipt as unknown as { hash: string }).hash;
    const ofOwner = await waitUntil('the owner’s removeOperator event', () => {
      const hashes = deliveredHashes(hooks.owner);
      return hashes.includes(removeHash) && hashes;
    });
    expect(ofOwner).toHaveLength(3);
    expect(ofOwner).not.toContain(rewardHash);
  });
});

describe('GraphQL', () => {
  let appId: string;
  const user = Wallet.createRandom().address;
  const UNSIGNED =
    'unsignedTransaction { to data maxPriorityFeePerGas maxFeePerGas gasLimit nonce chainId type }';
  const gql = <T>(query: string, apiKey: string, variables: Record<string, unknown> = {}) =>
    graphql<T>(laurel.url, query, { apiKey, variables });

  /** Signs `unsigned` with `wallet` and sends it with executeTransactionAndWait; returns the hash. */
  async function executeAndWait(unsigned: Unsigned, wallet: Wallet, apiKey: string): Promise<string> {
    const result = await gql<{ executeTransactionAndWait: { status: string; transactionHash: string } }>(
      `mutation ($signed: String!) { executeTransactionAndWait(chain: "local", signed_transaction: $signed) {
         status transactionHash } }`,
      apiKey,
      { signed: await wallet.signTransaction(unsigned) },
    );
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data!.executeTransactionAndWait.status).toBe('success');
    return result.body.data!.executeTransactionAndWait.transactionHash;
  }

  const operatorMutation = (name: 'addOperator' | 'removeOperator') =>
    `mutation ($app: String!, $operator: String!) {
       ${name}(chain: "local", app_id: $app, operator_address: $operator) { ${UNSIGNED} } }`;
  const APPS = 'query { apps(chain: "local") { id owner operators } }';

  beforeAll(async () => {
    appId = await createApp(asOwner, 'Operated via GraphQL');
  });

  it('addOperator, an operator reward through every path, removeOperator', async () => {
    const added = await gql<{ addOperator: { unsignedTransaction: Unsigned } }>(
      operatorMutation('addOperator'),
      ownerKey,
      {
        app: appId,
        operator: gqlOperator.address,
      },
    );
    expect(added.body.errors).toBeUndefined();
    const addTx = added.body.data!.addOperator.unsignedTransaction;
    expect(addTx).toEqual(UNSIGNED_TX);
    expect(addTx.data).toBe(appInterface.encodeFunctionData('addOperator', [gqlOperator.address]));
    await executeAndWait(addTx, owner, ownerKey);

    const listed = await gql<{ apps: { id: string; owner: string; operators: string[] }[] }>(
      APPS,
      gqlOperatorKey,
    );
    expect(listed.body.data!.apps).toEqual([
      { id: appId, owner: owner.address, operators: [gqlOperator.address] },
    ]);

    const reward = await gql<{ rewardXP: { unsignedTransaction: Unsigned } }>(
      `mutation ($app: String!, $user: String!) {
         rewardXP(chain: "local", app_id: $app, action_id: "graphql", receiver: $user, amount: "2.5") { ${UNSIGNED} } }`,
      gqlOperatorKey,
      { app: appId, user },
    );
    expect(reward.body.errors).toBeUndefined();
    const hash = await executeAndWait(
      reward.body.data!.rewardXP.unsignedTransaction,
      gqlOperator,
      gqlOperatorKey,
    );
    await waitUntil('the operator’s webhook called', () => deliveredHashes(hooks.gqlOperator).includes(hash));
    expect(await eventAccountsOf(hash)).toEqual([gqlOperator.address]);

    const leaderboard = await gql<{ leaderboard: { user: string; xp_rewarded: string }[] }>(
      'query ($app: String!) { leaderboard(chain: "local", app_id: $app) { user xp_rewarded } }',
      ownerKey,
      { app: appId },
    );
    expect(leaderboard.body.data!.leaderboard).toEqual([{ user, xp_rewarded: '2.5' }]);

    const removed = await gql<{ removeOperator: { unsignedTransaction: Unsigned } }>(
      operatorMutation('removeOperator'),
      ownerKey,
      { app: appId, operator: gqlOperator.address },
    );
    expect(removed.body.errors).toBeUndefined();
    await executeAndWait(removed.body.data!.removeOperator.unsignedTransaction, owner, ownerKey);
    const ofOwner = await gql<{ apps: { id: string; operators: string[] }[] }>(APPS, ownerKey);
    expect(ofOwner.body.data!.apps.find((app) => app.id === appId)!.operators).toEqual([]);
    expect((await gql<{ apps: unknown[] }>(APPS, gqlOperatorKey)).body.data!.apps).toEqual([]);

    const refused = await gql(
      `mutation ($app: String!, $user: String!) {
         rewardXP(chain: "local", app_id: $app, action_id: "graphql", receiver: $user, amount: 1) { ${UNSIGNED} } }`,
      gqlOperatorKey,
      { app: appId, user },
    );
    expect(refused.body.errors![0]).toMatchObject({
      extensions: {
        code: 'TRANSACTION_ERROR',
        transaction_error: { reason: `NotOperator(${gqlOperator.address})`, function_name: 'rewardXP' },
      },
    });
  });

  it("refuses a non-owner's addOperator with the NotOwner transaction_error, an unknown app with APP_NOT_FOUND", async () => {
    const refused = await gql(operatorMutation('addOperator'), gqlOperatorKey, {
      app: appId,
      operator: gqlOperator.address,
    });
    const expected = revertOf(appId, 'addOperator', 'NotOwner', gqlOperator.address, 'caller');
    expect(refused.body.errors![0]).toMatchObject({
      message: expected.message,
      extensions: { code: 'TRANSACTION_ERROR', transaction_error: expected.transaction_error },
    });
    const noApp = Wallet.createRandom().address;
    const notFound = await gql(operatorMutation('removeOperator'), ownerKey, {
      app: noApp,
      operator: gqlOperator.address,
    });
    expect(notFound.body.errors![0]).toMatchObject({
      message: 'App not found',
      extensions: { code: 'APP_NOT_FOUND', app_id: noApp, chain: 'local' },
    });
    const invalid = await gql(operatorMutation('addOperator'), ownerKey, { app: appId, operator: 'nope' });
    expect(invalid.body.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
  });
});

describe('reorganisations', () => {
  it('an operator added in a block the chain then replaces leaves the listing', async () => {
    const appId = await createApp(asOwner, 'Reorganised');
    const reorganised = Wallet.createRandom().address;
    // Sent straight to the node, not through Laurel (which would send it again after the
    // reorganisation): the indexer alone puts it in the index.
    const app = new Contract(appId, appInterface, owner);
    const receipt = await mined(app.addOperator(reorganised) as Promise<ContractTransactionResponse>);
    await waitUntil('the operator indexed', async () =>
      (await operatorsOf(asOwner, appId))?.includes(reorganised),
    );
    expect(await laurel.chain!.provider.getBlockNumber()).toBe(receipt.blockNumber);

    await laurel.chain!.provider.send('anvil_reorg', [1, []]);
    expect(await laurel.chain!.provider.getTransaction(receipt.hash)).toBeNull();
    await waitUntil(
      'the operator out of the index',
      async () => (await operatorsOf(asOwner, appId))?.length === 0,
    );
    expect(await new Contract(appId, appInterface, laurel.chain!.provider).isOperator(reorganised)).toBe(
      false,
    );
  });
});
