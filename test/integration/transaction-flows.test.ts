import { Transaction, Wallet } from 'ethers';
import { appFactoryInterface, appInterface } from '../../src/chain/contracts';
import { LOCAL_EXPLORER_URL } from '../../src/chain/registry';
import { TransactionsRepository } from '../../src/modules/transactions/transactions.repository';
import {
  client,
  createApp,
  createCreditToken,
  eventArg,
  issueApiKeys,
  type Body,
  type Client,
  type Receipt,
  type Unsigned,
} from '../helpers/flow';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * What a user does after execute: asks what became of a transaction (GET /transactions/:hash),
 * reads what it created (`created`), releases builds never sent (DELETE /transactions/reservations)
 * and is told when a transaction is signed by another wallet than it was built for.
 */
let laurel: TestLaurel;
let owner: Wallet; // builds and sends
let other: Wallet; // another wallet with its own key
let backend: Wallet; // an app's backend relaying its users' signed transactions
let ownerKey: string;
let otherKey: string;
let asOwner: Client;
let asOther: Client;
let asBackend: Client;
let appId: string;

const explorer = (hash: string) => `${LOCAL_EXPLORER_URL}/tx/${hash}`;

async function build(api: Client, path: string, body: Body): Promise<Unsigned> {
  const built = await api.post(path, { chain: 'local', ...body });
  expect(built.status).toBe(200);
  return built.body.unsignedTransaction as Unsigned;
}

async function executeAndWait(api: Client, signed: string) {
  return api.post('/transactions/execute-and-wait', { chain: 'local', signed_transaction: signed });
}

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, , , , , , , owner, other, backend] = laurel.chain!.wallets;
  let backendKey: string;
  [ownerKey, otherKey, backendKey] = await issueApiKeys(laurel.url, [owner, other, backend]);
  asOwner = client(laurel.url, ownerKey, owner);
  asOther = client(laurel.url, otherKey, other);
  asBackend = client(laurel.url, backendKey, backend);
  appId = await createApp(asOwner, 'Flows');
});
afterAll(async () => {
  await laurel?.stop();
});

describe('what a transaction created', () => {
  it('execute-and-wait and GET /transactions/:hash name the app, badge and token created', async () => {
    const newApp = await build(asOwner, '/app/new', { name: 'Created' });
    const appResult = await executeAndWait(asOwner, await owner.signTransaction(newApp));
    const app = eventArg((appResult.body.receipt as Receipt).logs, appFactoryInterface, 'AppCreated', 'app');
    expect(appResult.body.created).toEqual({ apps: [app], badges: [], credit_tokens: [] });

    const badge = await build(asOwner, '/badge/new', { app_id: app, badge_name: 'Gold' });
    const badgeResult = await executeAndWait(asOwner, await owner.signTransaction(badge));
    expect(badgeResult.body.created).toEqual({
      apps: [],
      badges: [eventArg((badgeResult.body.receipt as Receipt).logs, appInterface, 'BadgeCreated', 'badge')],
      credit_tokens: [],
    });

    const token = await build(asOwner, '/credit/new', {
      app_id: app,
      token_name: 'Coin',
      token_symbol: 'CN',
      token_supply: 1,
      token_decimals: 0,
      token_is_point: false,
    });
    const tokenResult = await executeAndWait(asOwner, await owner.signTransaction(token));
    const created = {
      apps: [],
      badges: [],
      credit_tokens: [
        eventArg((tokenResult.body.receipt as Receipt).logs, appInterface, 'CreditTokenCreated', 'token'),
      ],
    };
    expect(tokenResult.body.created).toEqual(created);

    // The status endpoint says the same of a mined transaction, with its receipt.
    const hash = tokenResult.body.transactionHash as string;
    const status = await asOwner.get(`/transactions/${hash}`);
    expect(status).toMatchObject({ status: 200 });
    expect(status.body).toEqual({
      status: 'success',
      transactionHash: hash,
      blockExplorerUrl: explorer(hash),
      chain: 'local',
      from: owner.address,
      nonce: token.nonce,
      confirmations: 1,
      blockNumber: (tokenResult.body.receipt as { blockNumber: number }).blockNumber,
      receipt: tokenResult.body.receipt,
      created,
      sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      rebroadcasts: 0,
      rebroadcast_at: null,
    });
    await laurel.chain!.provider.send('evm_mine', []);
    expect((await asOwner.get(`/transactions/${hash}`)).body.confirmations).toBe(2);
  });
});

describe('GET /transactions/:hash', () => {
  it('answers a reverted transaction as failed, with its receipt and the decoded revert', async () => {
    const signed = await owner.signTransaction(
      await owner.populateTransaction({
        to: laurel.chain!.factory,
        data: appFactoryInterface.encodeFunctionData('createApp', ['']),
        gasLimit: 300_000,
      }),
    );
    const sent = await executeAndWait(asOwner, signed);
    expect(sent.body.status).toBe('failed');
    const status = await asOwner.get(`/transactions/${Transaction.from(signed).hash!}`);
    expect(status.body).toMatchObject({
      status: 'failed',
      error: 'Transaction reverted: EmptyName()',
      receipt: sent.body.receipt,
      confirmations: 1,
    });
    expect(status.body.created).toBeUndefined();
  });

  it('answers a dropped transaction as dropped', async () => {
    // A transaction recorded as sent that the node never saw, marked dropped (as the receipt job does).
    const signed = await other.signTransaction({
      to: other.address,
      nonce: 999,
      gasLimit: 21_000,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337,
    });
    const transaction = Transaction.from(signed);
    const repository = new TransactionsRepository(laurel.services.prisma, laurel.services.pool);
    const chain = laurel.services.chains.get('local');
    await repository.record(chain, transaction, {
      requestId: 'test',
      followedUntil: new Date(Date.now() + 3_600_000),
      signedTransaction: signed,
    });
    await repository.markDropped(chain.chainId, transaction.hash!, 'pending', 'the node refused it');
    expect((await asOther.get(`/transactions/${transaction.hash!}?chain=local`)).body).toMatchObject({
      status: 'dropped',
      confirmations: 0,
      blockNumber: null,
      from: other.address,
      nonce: 999,
      error: 'Dropped: the node refused it',
      rebroadcasts: 0,
      rebroadcast_at: null,
    });
  });

  it("answers 404 in Shape A for an unknown hash and for another wallet's transaction; 400 for a bad hash", async () => {
    const unknown = `0x${'12'.repeat(32)}`;
    expect(await asOwner.get(`/transactions/${unknown}`)).toMatchObject({
      status: 404,
      body: {
        status: 'failed',
        error: `transaction not found: ${owner.address} signed no transaction ${unknown} sent through this service`,
      },
    });
    const mine = await executeAndWait(
      asOwner,
      await owner.signTransaction(await build(asOwner, '/app/new', { name: 'Mine' })),
    );
    const hash = mine.body.transactionHash as string;
    expect((await asOther.get(`/transactions/${hash}`)).status).toBe(404);
    // The hash in any case.
    expect((await asOwner.get(`/transactions/${hash.toUpperCase().replace('0X', '0x')}`)).status).toBe(200);

    const bad = await asOwner.get('/transactions/0x1234');
    expect(bad).toMatchObject({
      status: 400,
      body: {
        status: 'failed',
        error: 'hash: Invalid: expected a transaction hash, 0x + 64 hex digits',
        issues: [expect.objectContaining({ code: 'invalid_string', path: ['hash'] })],
      },
    });
    expect((await asOwner.get(`/transactions/${hash}?chain=nowhere`)).body).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('Unknown chain "nowhere"'),
    });
  });

  it('is the query transactionStatus over GraphQL', async () => {
    const sent = await executeAndWait(
      asOwner,
      await owner.signTransaction(await build(asOwner, '/app/new', { name: 'Q' })),
    );
    const hash = sent.body.transactionHash as string;
    const result = await graphql<{ transactionStatus: Body }>(
      laurel.url,
      `
        query ($hash: String!) {
          transactionStatus(hash: $hash) {
            status
            chain
            confirmations
            created {
              apps
              badges
              credit_tokens
            }
          }
        }
      `,
      { apiKey: ownerKey, variables: { hash } },
    );
    expect(result.body.data?.transactionStatus).toEqual({
      status: 'success',
      chain: 'local',
      confirmations: 1,
      created: sent.body.created,
    });
  });
});

describe('releasing unsent builds', () => {
  it('frees the nonces of builds never sent: the next build no longer waits behind them', async () => {
    const next = await laurel.chain!.provider.getTransactionCount(owner.address, 'pending');
    const looked = await build(asOwner, '/app/new', { name: 'Looked at' });
    const alsoLooked = await build(asOwner, '/app/new', { name: 'Looked at too' });
    expect([looked.nonce, alsoLooked.nonce]).toEqual([next, next + 1]);
    // Without releasing, the next build would come after them (and wait behind a gap once sent).
    const released = await request(laurel.url, 'DELETE', '/v1/transactions/reservations?chain=local', {
      apiKey: ownerKey,
    });
    expect(released).toMatchObject({
      status: 200,
      body: { status: 'success', chain: 'local', sender: owner.address, released: [next, next + 1] },
    });

    const real = await build(asOwner, '/app/new', { name: 'Sent at once' });
    expect(real.nonce).toBe(next);
    const started = Date.now();
    expect((await executeAndWait(asOwner, await owner.signTransaction(real))).body.status).toBe('success');
    expect(Date.now() - started).toBeLessThan(2000); // no nonce-gap wait

    // Nothing left to release; another wallet's builds are its own.
    const otherBuild = await build(asOther, '/app/new', { name: 'Theirs' });
    expect(
      (await request(laurel.url, 'DELETE', '/v1/transactions/reservations?chain=local', { apiKey: ownerKey }))
        .body.released,
    ).toEqual([]);
    const graphqlRelease = await graphql<{ releaseNonceReservations: Body }>(
      laurel.url,
      'mutation { releaseNonceReservations(chain: "local") { chain sender released } }',
      { apiKey: otherKey },
    );
    expect(graphqlRelease.body.data?.releaseNonceReservations).toEqual({
      chain: 'local',
      sender: other.address,
      released: [otherBuild.nonce],
    });
  });

  it('answers a missing or unknown chain in Shape A', async () => {
    const missing = await request(laurel.url, 'DELETE', '/v1/transactions/reservations', {
      apiKey: ownerKey,
    });
    expect(missing).toMatchObject({
      status: 400,
      body: { status: 'failed', error: expect.stringContaining('chain') },
    });
    const unknown = await request(laurel.url, 'DELETE', '/v1/transactions/reservations?chain=nowhere', {
      apiKey: ownerKey,
    });
    expect(unknown).toMatchObject({ status: 400, body: { status: 'failed' } });
  });
});

describe('who signed a transaction', () => {
  it('refuses a transaction signed by another wallet than it was built for, naming both', async () => {
    const built = await build(asOwner, '/app/new', { name: 'Wrong key' });
    const signed = await other.signTransaction(built); // the other wallet's key, same nonce by chance or not
    const result = await executeAndWait(asOwner, signed);
    expect(result).toMatchObject({
      status: 422,
      body: {
        status: 'failed',
        reason: 'signer_mismatch',
        signer: other.address,
        built_for: owner.address,
        transactionHash: Transaction.from(signed).hash,
      },
    });
    expect(result.body.error).toBe(
      `The transaction is signed by ${other.address}, but Laurel built it for ${owner.address} (nonce ${built.nonce as number} of ${owner.address}): ` +
        `sign it with ${owner.address}'s key, or build it again with ${other.address}'s API key.`,
    );
    // Nothing recorded, nothing sent; signed by the right wallet, it goes through.
    expect(
      await laurel.services.prisma.transaction.count({ where: { hash: Transaction.from(signed).hash! } }),
    ).toBe(0);
    expect((await executeAndWait(asOwner, await owner.signTransaction(built))).body.status).toBe('success');
  });

  it("broadcasts a user's own signed transaction sent by an app's backend (another API key)", async () => {
    // The user builds (and reserves) an approval for the app with their own key and signs it...
    const tokenId = await createCreditToken(asOwner, appId, {
      token_name: 'Relayed',
      token_symbol: 'RLY',
      token_supply: 0,
      token_decimals: 0,
      token_is_point: false,
    });
    const approve = await build(asOther, '/credit/approve', {
      token_id: tokenId,
      holder_address: other.address,
      spender_address: appId,
      amount: 5,
    });
    const signed = await other.signTransaction(approve);
    // ...and the app's backend sends it with its own key.
    const sent = await executeAndWait(asBackend, signed);
    expect(sent).toMatchObject({ status: 200, body: { status: 'success' } });
    const hash = sent.body.transactionHash as string;
    // It is the user's, who signed it (issue 43: a transaction belongs to its signer), not the backend's.
    expect((await asOther.get(`/transactions/${hash}`)).body).toMatchObject({
      status: 'success',
      from: other.address,
    });
    expect((await asBackend.get(`/transactions/${hash}`)).status).toBe(404);
  });

  it("names the signer's wallet in a nonce gap, even when another key sends it", async () => {
    const next = await laurel.chain!.provider.getTransactionCount(other.address, 'pending');
    const ahead = await other.signTransaction(
      await other.populateTransaction({ to: other.address, value: 1n, nonce: next + 1 }),
    );
    const result = await executeAndWait(asBackend, ahead);
    expect(result).toMatchObject({
      status: 409,
      body: { reason: 'nonce_gap', sender: other.address, next_nonce: next, missing_nonces: [next] },
    });
    expect(result.body.error).toContain(`Nonce ${next + 1} of ${other.address} (the transaction's signer)`);
  });
});
