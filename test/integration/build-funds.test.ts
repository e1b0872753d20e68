import { toQuantity, Wallet, type HDNodeWallet } from 'ethers';
import { Client as PgClient } from 'pg';
import {
  UNSIGNED_TX,
  UNSIGNED_TX_WITH_GAS,
  client,
  createApp,
  createCreditToken,
  issueApiKeys,
  type Client,
} from '../helpers/flow';
import { issueApiKey } from '../helpers/auth';
import { startTestChain } from '../helpers/chain';
import { startHostileRpc, type HostileRpc } from '../helpers/hostile-rpc';
import { graphql, startTestLaurel, type TestLaurel, type TestChain } from '../helpers/laurel';

/**
 * A build whose sender cannot pay for it (gas limit × max fee per gas above its balance) answers
 * 422 `transaction_error` with `insufficient_funds` (the amount missing, the balance and the cost,
 * in wei) in the path's failure shape, and reserves no nonce; once funded, the same build is built.
 */
let laurel: TestLaurel;
let owner: Wallet;
let asOwner: Client;
let poor: HDNodeWallet;
let poorKey: string;
let asPoor: Client;
let token: string;
let db: PgClient;
let chain: TestChain;
let proxy: HostileRpc; // forwards to anvil, and records the methods of each HTTP request

const weiString = expect.stringMatching(/^\d+$/);

/** Every row the nonce reservation tables hold for `sender` (reservations, gap structure). */
async function reservationRows(sender: string): Promise<unknown[]> {
  const rows = await Promise.all(
    ['nonce_reservations', 'nonce_senders', 'free_nonces'].map(async (table) => {
      const result = await db.query(`SELECT * FROM ${table} WHERE lower(sender) = lower($1)`, [sender]);
      return result.rows.map((row: unknown) => ({ table, row }));
    }),
  );
  return rows.flat();
}

/** What `insufficient_funds` and `transaction_error` of a refused build say, checked against each other. */
function expectUnfunded(details: Record<string, unknown>, functionName: string, to: string): void {
  const funds = details.insufficient_funds as Record<string, string>;
  expect(funds).toEqual({
    sender: poor.address,
    balance: '0',
    cost: weiString,
    missing: weiString,
    gas_limit: weiString,
    max_fee_per_gas: weiString,
  });
  expect(BigInt(funds.cost)).toBe(BigInt(funds.gas_limit) * BigInt(funds.max_fee_per_gas));
  expect(BigInt(funds.missing)).toBe(BigInt(funds.cost) - BigInt(funds.balance));
  expect(BigInt(funds.missing)).toBeGreaterThan(0n);
  expect(details.transaction_error).toEqual({
    reason: `insufficient funds for gas * price + value: have 0 want ${funds.cost}`,
    message: `The transaction "${functionName}" cannot be paid for: insufficient funds for gas * price + value: have 0 want ${funds.cost}`,
    detailsMessage: `insufficient funds for gas * price + value: have 0 want ${funds.cost}`,
    contract_address: to,
    chain_id: 31337,
    function_name: functionName,
    data: { abiItem: null, errorName: null },
  });
}

/** The message of a refused build on the local chain: the amounts, and how to fund the wallet. */
const unfundedMessage = (functionName: string) =>
  expect.stringMatching(
    new RegExp(
      `^${poor.address} cannot pay for "${functionName}": it holds 0 wei, .* wei missing\\. Fund the wallet and build again\\. ` +
        'On this development chain, fund it with .*anvil_setBalance.*dev accounts',
    ),
  );

beforeAll(async () => {
  chain = await startTestChain();
  proxy = await startHostileRpc(chain.rpcUrl);
  laurel = await startTestLaurel({ chain: { ...chain, rpcUrl: proxy.url } });
  owner = laurel.chain!.wallets[1];
  poor = Wallet.createRandom();
  const [ownerKey] = await issueApiKeys(laurel.url, [owner]);
  poorKey = await issueApiKey(laurel.url, poor);
  asOwner = client(laurel.url, ownerKey, owner);
  asPoor = client(laurel.url, poorKey, poor);
  const appId = await createApp(asOwner, 'Funds');
  token = await createCreditToken(asOwner, appId, {
    token_name: 'Gold',
    token_symbol: 'GLD',
    token_supply: 10,
    token_decimals: 0,
    token_is_point: false,
  });
  db = new PgClient({ connectionString: laurel.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await laurel?.stop();
  await proxy?.close();
  await chain?.stop();
});

const approveBody = () => ({
  chain: 'local',
  token_id: token,
  holder_address: poor.address,
  spender_address: owner.address,
  amount: 1,
});

describe('a build its sender cannot pay for', () => {
  it('REST Shape B (POST /credit/approve): 422 transaction_error with the amount missing; no nonce reserved', async () => {
    const before = await reservationRows(poor.address);
    const result = await asPoor.post('/credit/approve', approveBody());
    expect(result.status).toBe(422);
    expect(result.body).toEqual({
      success: false,
      error: {
        code: 'transaction_error',
        message: unfundedMessage('approve'),
        transaction_error: expect.any(Object),
        insufficient_funds: expect.any(Object),
      },
    });
    expectUnfunded(result.body.error as Record<string, unknown>, 'approve', token);
    expect(await reservationRows(poor.address)).toEqual(before);
  });

  it('REST Shape A (POST /app/new): 422 with transaction_error and insufficient_funds; no nonce reserved', async () => {
    const before = await reservationRows(poor.address);
    const result = await asPoor.post('/app/new', { chain: 'local', name: 'Unpaid' });
    expect(result.status).toBe(422);
    expect(result.body).toEqual({
      status: 'failed',
      error: unfundedMessage('createApp'),
      transaction_error: expect.any(Object),
      insufficient_funds: expect.any(Object),
    });
    expectUnfunded(result.body, 'createApp', laurel.chain!.factory);
    expect(await reservationRows(poor.address)).toEqual(before);
  });

  it('GraphQL (approveCredit): TRANSACTION_ERROR with insufficient_funds; no nonce reserved', async () => {
    const before = await reservationRows(poor.address);
    const result = await graphql(
      laurel.url,
      `
        mutation ($token: String!, $holder: String!, $spender: String!) {
          approveCredit(
            chain: "local"
            token_id: $token
            holder_address: $holder
            spender_address: $spender
            amount: 1
          ) {
            unsignedTransaction {
              nonce
            }
          }
        }
      `,
      { apiKey: poorKey, variables: { token, holder: poor.address, spender: owner.address } },
    );
    expect(result.body.data).toBeNull();
    const [error] = result.body.errors!;
    expect(error).toMatchObject({
      message: unfundedMessage('approve'),
      extensions: { code: 'TRANSACTION_ERROR', http_status: 422 },
    });
    expectUnfunded(error.extensions!, 'approve', token);
    expect(await reservationRows(poor.address)).toEqual(before);
  });

  it('once funded with what was missing (and a margin for the fees moving), the same builds are built', async () => {
    const refused = await asPoor.post('/credit/approve', approveBody());
    const { missing } = (refused.body.error as { insufficient_funds: { missing: string } })
      .insufficient_funds;
    await laurel.chain!.provider.send('anvil_setBalance', [poor.address, toQuantity(BigInt(missing) * 4n)]);

    const rest = await asPoor.post('/credit/approve', approveBody());
    expect(rest).toMatchObject({ status: 200, body: { success: true } });
    expect(rest.body.unsignedTransaction).toEqual({ ...UNSIGNED_TX_WITH_GAS, to: token, nonce: 0 });
    const viaGraphql = await graphql<{ approveCredit: { unsignedTransaction: Record<string, unknown> } }>(
      laurel.url,
      `
        mutation ($token: String!, $holder: String!, $spender: String!) {
          approveCredit(
            chain: "local"
            token_id: $token
            holder_address: $holder
            spender_address: $spender
            amount: 1
          ) {
            unsignedTransaction {
              to
              nonce
              chainId
            }
          }
        }
      `,
      { apiKey: poorKey, variables: { token, holder: poor.address, spender: owner.address } },
    );
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data!.approveCredit.unsignedTransaction).toEqual({
      to: token,
      nonce: 1,
      chainId: 31337,
    });
    // Two builds, two reservations.
    const reserved = await db.query(
      'SELECT nonce FROM nonce_reservations WHERE lower(sender) = lower($1) ORDER BY nonce',
      [poor.address],
    );
    expect(reserved.rows.map((row: { nonce: string }) => Number(row.nonce))).toEqual([0, 1]);

    // And the approval, signed and sent, is mined.
    const receipt = await asPoor.execute(rest.body.unsignedTransaction as Record<string, unknown>);
    expect(receipt.logs).toHaveLength(1);
  });

  it('the balance is read in the build’s own JSON-RPC batch: no request of its own', async () => {
    const built = await asOwner.post('/app/new', { chain: 'local', name: 'Batched' });
    expect(built.status).toBe(200);
    const ofTheBuild = proxy.requests().filter((methods) => methods.includes('eth_estimateGas'));
    expect(ofTheBuild.length).toBeGreaterThan(0);
    for (const methods of ofTheBuild) {
      expect(methods).toEqual(
        expect.arrayContaining(['eth_estimateGas', 'eth_getTransactionCount', 'eth_getBalance']),
      );
    }
    // Nothing but a build reads balances.
    const balanceReads = proxy
      .requests()
      .flat()
      .filter((method) => method === 'eth_getBalance');
    expect(balanceReads).toHaveLength(
      proxy
        .requests()
        .flat()
        .filter((method) => method === 'eth_estimateGas').length,
    );
  });

  it('a funded wallet builds as before', async () => {
    const built = await asOwner.post('/app/new', { chain: 'local', name: 'Paid' });
    expect(built).toMatchObject({ status: 200, body: { success: true } });
    expect(built.body.unsignedTransaction).toEqual({ ...UNSIGNED_TX, to: laurel.chain!.factory });
  });
});
