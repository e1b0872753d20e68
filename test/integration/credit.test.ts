import { Contract, Signature, SigningKey, Wallet, ZeroAddress } from 'ethers';
import { revertHint } from '../../src/chain/reverts';
import { appInterface, creditTokenInterface } from '../../src/chain/contracts';
import { PERMIT_TYPES } from '../../src/modules/credit/credit.service';
import { mined } from '../helpers/chain';
import {
  UNSIGNED_TX_WITH_GAS,
  client,
  createApp,
  eventArg,
  issueApiKeys,
  type Body,
  type Client,
  type Unsigned,
} from '../helpers/flow';
import { graphql, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

/**
 * The credit token operations on anvil, through REST (and GraphQL): build → sign with the caller's
 * wallet as given → execute-and-wait → check the chain; and every documented failure body.
 */
let laurel: TestLaurel;
let owner: Wallet;
let stranger: Wallet;
let relayer: Wallet;
let ownerKey: string;
let strangerKey: string;
let api: Client; // the owner's

let appId: string;
let token: string; // "Gold", 6 decimals, 1000.5 minted to the owner
let pointToken: string;

const erc20 = (address: string) => new Contract(address, creditTokenInterface, laurel.chain!.provider);

/** Creates a token through POST /credit/new + execute-and-wait; returns its address. */
async function createToken(body: Body): Promise<string> {
  const built = await api.post('/credit/new', { chain: 'local', app_id: appId, ...body });
  expect(built.status).toBe(200);
  expect(built.body).toEqual({ success: true, unsignedTransaction: { ...UNSIGNED_TX_WITH_GAS, to: appId } });
  const receipt = await api.execute(built.body.unsignedTransaction as Unsigned);
  return eventArg(receipt.logs, appInterface, 'CreditTokenCreated', 'token');
}

const validationError = (issues: { code: string; message: string; parameter: string }[]) => ({
  success: false,
  error: {
    code: 'validation_error',
    message: issues.map((issue) => `${issue.parameter}: ${issue.message}`).join('; '),
    issues: issues.map((issue) => ({ ...issue, path: issue.parameter })),
  },
});

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, , , , , owner, stranger, relayer] = laurel.chain!.wallets;
  [ownerKey, strangerKey] = await issueApiKeys(laurel.url, [owner, stranger]);
  api = client(laurel.url, ownerKey, owner);

  // The owner's app, made the way a client makes it: POST /app/new, sign, execute.
  appId = await createApp(api, 'Credit app');
});
afterAll(async () => {
  await laurel?.stop();
});

describe('POST /credit/new', () => {
  it('builds App.createCreditToken; executed, the token exists with the supply at the caller', async () => {
    token = await createToken({
      token_name: 'Gold',
      token_symbol: 'GLD',
      token_supply: 1000.5,
      token_decimals: 6,
      token_is_point: false,
    });
    const contract = erc20(token);
    expect(await contract.name()).toBe('Gold');
    expect(await contract.symbol()).toBe('GLD');
    expect(await contract.decimals()).toBe(6n);
    expect(await contract.isPoint()).toBe(false);
    expect(await contract.app()).toBe(appId);
    expect(await contract.balanceOf(owner.address)).toBe(1_000_500_000n);
    expect(await contract.totalSupply()).toBe(1_000_500_000n);
  });

  it('creates a point token with no supply', async () => {
    pointToken = await createToken({
      token_name: 'Points',
      token_symbol: 'PTS',
      token_supply: 0,
      token_decimals: 0,
      token_is_point: true,
    });
    expect(await erc20(pointToken).isPoint()).toBe(true);
    expect(await erc20(pointToken).totalSupply()).toBe(0n);
  });

  const valid = {
    chain: 'local',
    token_name: 'Silver',
    token_symbol: 'SLV',
    token_supply: 1,
    token_decimals: 18,
    token_is_point: false,
  };

  it('answers validation errors in Shape B', async () => {
    const result = await api.post('/credit/new', {
      chain: '',
      app_id: 'nope',
      token_name: '',
      token_symbol: 'x'.repeat(513),
      token_supply: -1,
      token_decimals: 1.5,
    });
    expect(result.status).toBe(400);
    expect(result.body).toEqual(
      validationError([
        { code: 'too_small', message: 'String must contain at least 1 character(s)', parameter: 'chain' },
        { code: 'invalid_string', message: 'Invalid address', parameter: 'app_id' },
        {
          code: 'too_small',
          message: 'String must contain at least 1 character(s)',
          parameter: 'token_name',
        },
        {
          code: 'too_big',
          message: 'String must contain at most 512 character(s)',
          parameter: 'token_symbol',
        },
        {
          code: 'too_small',
          message: 'Number must be greater than or equal to 0',
          parameter: 'token_supply',
        },
        { code: 'invalid_type', message: 'Expected integer, received float', parameter: 'token_decimals' },
        { code: 'invalid_type', message: 'Required', parameter: 'token_is_point' },
      ]),
    );
  });

  it('refuses a supply finer than the decimals', async () => {
    const result = await api.post('/credit/new', {
      ...valid,
      app_id: appId,
      token_supply: 0.0000001,
      token_decimals: 6,
    });
    expect(result.status).toBe(400);
    expect(result.body).toEqual(
      validationError([
        { code: 'custom', message: 'token_supply has more than 6 decimal places', parameter: 'token_supply' },
      ]),
    );
  });

  it('answers an unknown app with app_not_found', async () => {
    const result = await api.post('/credit/new', { ...valid, app_id: owner.address });
    expect(result.status).toBe(404);
    expect(result.body).toEqual({
      success: false,
      error: { code: 'app_not_found', message: 'App not found', app_id: owner.address, chain: 'local' },
    });
  });

  it('answers a caller who does not operate the app with the decoded NotOperator revert', async () => {
    const result = await api.post('/credit/new', { ...valid, app_id: appId }, strangerKey);
    expect(result.status).toBe(422);
    const reason = `NotOperator(${stranger.address})`;
    expect(result.body).toEqual({
      success: false,
      error: {
        code: 'transaction_error',
        message: `The contract function "createCreditToken" reverted with the following reason: ${reason}: ${revertHint('NotOperator')}`,
        transaction_error: {
          reason,
          message: `The contract function "createCreditToken" reverted with the following reason: ${reason}`,
          detailsMessage: expect.any(String),
          contract_address: appId,
          chain_id: 31337,
          function_name: 'createCreditToken',
          data: {
            abiItem: {
              inputs: [{ internalType: 'address', name: 'caller', type: 'address' }],
              name: 'NotOperator',
              type: 'error',
            },
            errorName: 'NotOperator',
          },
        },
      },
    });
  });

  it('refuses more decimals than Laurel allows (0..18) as a validation error, as the contract would', async () => {
    const result = await api.post('/credit/new', { ...valid, app_id: appId, token_decimals: 19 });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      success: false,
      error: {
        code: 'validation_error',
        message: 'token_decimals: Number must be less than or equal to 18',
        issues: [
          {
            code: 'too_big',
            message: 'Number must be less than or equal to 18',
            parameter: 'token_decimals',
            path: 'token_decimals',
          },
        ],
      },
    });
  });
});

describe('GET /credit/tokens', () => {
  it("lists the app's tokens, in creation order, from the index of contract events", async () => {
    // Created on chain directly (in beforeAll): listed once the indexer has read their blocks.
    const result = await waitUntil('both tokens in the index', async () => {
      const listed = await api.get(`/credit/tokens?chain=local&app_id=${appId}`);
      return (listed.body.tokens as unknown[] | undefined)?.length === 2 ? listed : undefined;
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      status: 'success',
      tokens: [
        { id: token, name: 'Gold', symbol: 'GLD', decimals: 6, is_point: false },
        { id: pointToken, name: 'Points', symbol: 'PTS', decimals: 0, is_point: true },
      ],
    });
  });

  it('answers an unknown app with app_not_found and a bad address with a validation error', async () => {
    const unknown = await api.get(`/credit/tokens?chain=local&app_id=${owner.address}`);
    expect(unknown).toMatchObject({
      status: 404,
      body: {
        success: false,
        error: { code: 'app_not_found', message: 'App not found', app_id: owner.address, chain: 'local' },
      },
    });
    const invalid = await api.get('/credit/tokens?chain=local&app_id=0x12');
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual(
      validationError([{ code: 'invalid_string', message: 'Invalid address', parameter: 'app_id' }]),
    );
  });
});

describe('POST /credit/balance', () => {
  it('answers the raw and formatted balance', async () => {
    const result = await api.post('/credit/balance', {
      chain: 'local',
      token_id: token,
      user_id: owner.address,
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      success: true,
      balance: '1000500000',
      balance_formatted: '1000.5',
      decimals: 6,
    });
  });

  it('takes addresses without 0x in any case', async () => {
    const result = await api.post('/credit/balance', {
      chain: 'local',
      token_id: token.slice(2).toLowerCase(),
      user_id: stranger.address.toUpperCase().replace('0X', '0x'),
    });
    expect(result.body).toEqual({ success: true, balance: '0', balance_formatted: '0', decimals: 6 });
  });

  it('answers an invalid address with the documented validation error', async () => {
    const result = await api.post('/credit/balance', {
      chain: 'local',
      token_id: '0x123',
      user_id: owner.address,
    });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      success: false,
      error: {
        code: 'validation_error',
        message: 'token_id: Invalid address',
        issues: [
          { code: 'invalid_string', message: 'Invalid address', parameter: 'token_id', path: 'token_id' },
        ],
      },
    });
  });

  it('answers token_not_found for an account and for a contract that is not a credit token', async () => {
    for (const address of [stranger.address, appId]) {
      const result = await api.post('/credit/balance', {
        chain: 'local',
        token_id: address,
        user_id: owner.address,
      });
      expect(result.status).toBe(404);
      expect(result.body).toEqual({
        success: false,
        error: { code: 'token_not_found', message: 'Token not found' },
      });
    }
  });

  it('answers an unknown chain as a validation error on chain', async () => {
    const result = await api.post('/credit/balance', {
      chain: 'mars',
      token_id: token,
      user_id: owner.address,
    });
    expect(result.status).toBe(400);
    expect(result.body).toEqual(
      validationError([
        { code: 'custom', message: 'Unknown chain "mars"; this service serves: local', parameter: 'chain' },
      ]),
    );
  });
});

describe('POST /credit/approve', () => {
  it("builds approve from the holder; executed, the spender's allowance is set", async () => {
    const result = await api.post('/credit/approve', {
      chain: 'local',
      token_id: token,
      holder_address: owner.address,
      spender_address: stranger.address,
      amount: 12.25,
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      success: true,
      unsignedTransaction: { ...UNSIGNED_TX_WITH_GAS, to: token },
    });
    await api.execute(result.body.unsignedTransaction as Unsigned);
    expect(await erc20(token).allowance(owner.address, stranger.address)).toBe(12_250_000n);
  });

  it('answers approving the zero address with the decoded ERC20InvalidSpender revert', async () => {
    const result = await api.post('/credit/approve', {
      chain: 'local',
      token_id: token,
      holder_address: owner.address,
      spender_address: ZeroAddress,
      amount: 1,
    });
    expect(result.status).toBe(422);
    const reason = `ERC20InvalidSpender(${ZeroAddress})`;
    const message = `The contract function "approve" reverted with the following reason: ${reason}`;
    expect(result.body).toEqual({
      success: false,
      error: {
        code: 'transaction_error',
        message: `${message}: ${revertHint('ERC20InvalidSpender')}`,
        transaction_error: {
          reason,
          message,
          // anvil's own message; it ends with the raw revert argument bytes.
          detailsMessage: expect.stringMatching(/^execution reverted: custom error 0x94280d62:/),
          contract_address: token,
          chain_id: 31337,
          function_name: 'approve',
          data: {
            abiItem: {
              inputs: [{ internalType: 'address', name: 'spender', type: 'address' }],
              name: 'ERC20InvalidSpender',
              type: 'error',
            },
            errorName: 'ERC20InvalidSpender',
          },
        },
      },
    });
  });

  it('answers a holder other than the caller with a validation error on holder_address', async () => {
    const result = await api.post('/credit/approve', {
      chain: 'local',
      token_id: token,
      holder_address: stranger.address,
      spender_address: owner.address,
      amount: 1,
    });
    expect(result.status).toBe(400);
    expect(result.body).toEqual(
      validationError([
        {
          code: 'custom',
          message: `holder_address must be the caller's own wallet (${owner.address}): the holder signs the approval`,
          parameter: 'holder_address',
        },
      ]),
    );
  });

  it('answers amount 0 with too_small, and an unknown token with token_not_found', async () => {
    const zero = await api.post('/credit/approve', {
      chain: 'local',
      token_id: token,
      holder_address: owner.address,
      spender_address: stranger.address,
      amount: 0,
    });
    expect(zero.status).toBe(400);
    expect(zero.body).toEqual(
      validationError([{ code: 'too_small', message: 'Number must be greater than 0', parameter: 'amount' }]),
    );
    const unknown = await api.post('/credit/approve', {
      chain: 'local',
      token_id: appId,
      holder_address: owner.address,
      spender_address: stranger.address,
      amount: 1,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      success: false,
      error: { code: 'token_not_found', message: 'Token not found' },
    });
  });
});

describe('POST /credit/permit-data', () => {
  const permitBody = (amount: number) => ({
    chain: 'local',
    token_id: token,
    holder_address: owner.address,
    receiver_address: relayer.address,
    amount,
  });

  it("answers the holder's permit digest; signed by the holder, permit() sets the allowance on chain", async () => {
    const contract = erc20(token);
    const before = Math.floor(Date.now() / 1000);
    const result = await api.post('/credit/permit-data', permitBody(7.5));
    expect(result.status).toBe(200);
    const domainSeparator = (await contract.DOMAIN_SEPARATOR()) as string;
    expect(result.body).toEqual({
      success: true,
      permitData: {
        nonce: '0',
        domainSeparator,
        deadline: expect.any(Number),
        hashToSign: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        domain: { name: 'Gold', version: '1', chainId: 31337, verifyingContract: token },
      },
    });
    const permitData = result.body.permitData as { nonce: string; deadline: number; hashToSign: string };
    expect(permitData.deadline).toBeGreaterThanOrEqual(before + 3600);
    expect(permitData.deadline).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600);

    // The holder signs the raw digest; the same signature as eth_signTypedData over the token's domain.
    const signature = Signature.from(new SigningKey(owner.privateKey).sign(permitData.hashToSign));
    const typed = await owner.signTypedData(
      { name: 'Gold', version: '1', chainId: 31337, verifyingContract: token },
      PERMIT_TYPES,
      {
        owner: owner.address,
        spender: relayer.address,
        value: 7_500_000n,
        nonce: 0n,
        deadline: permitData.deadline,
      },
    );
    expect(signature.serialized).toBe(typed);

    // Anyone (here the receiver) submits it.
    const permit = contract.connect(relayer) as Contract;
    await mined(
      permit.permit(
        owner.address,
        relayer.address,
        7_500_000n,
        permitData.deadline,
        signature.v,
        signature.r,
        signature.s,
      ),
    );
    expect(await contract.allowance(owner.address, relayer.address)).toBe(7_500_000n);
    expect(await contract.nonces(owner.address)).toBe(1n);

    const next = await api.post('/credit/permit-data', permitBody(1));
    expect((next.body.permitData as { nonce: string }).nonce).toBe('1');
  });

  it('answers validation errors, a point token and an unknown token', async () => {
    const zero = await api.post('/credit/permit-data', permitBody(0));
    expect(zero.status).toBe(400);
    expect(zero.body).toEqual(
      validationError([{ code: 'too_small', message: 'Number must be greater than 0', parameter: 'amount' }]),
    );
    const point = await api.post('/credit/permit-data', { ...permitBody(1), token_id: pointToken });
    expect(point.status).toBe(400);
    expect(point.body).toEqual(
      validationError([
        {
          code: 'custom',
          message: 'Point tokens are non-transferable: they cannot be permitted',
          parameter: 'token_id',
        },
      ]),
    );
    const unknown = await api.post('/credit/permit-data', { ...permitBody(1), token_id: stranger.address });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      success: false,
      error: { code: 'token_not_found', message: 'Token not found' },
    });
  });
});

describe('GraphQL', () => {
  it('creditBalance, creditTokens and creditPermitData answer what REST answers', async () => {
    const result = await graphql<{
      creditBalance: Body;
      creditTokens: Body[];
      creditPermitData: Body;
    }>(
      laurel.url,
      `
        query ($token: String!, $owner: String!, $app: String!, $receiver: String!) {
          creditBalance(chain: "local", token_id: $token, user_id: $owner) {
            balance
            balance_formatted
            decimals
          }
          creditTokens(chain: "local", app_id: $app) {
            id
            name
            symbol
            decimals
            is_point
          }
          creditPermitData(
            chain: "local"
            token_id: $token
            holder_address: $owner
            receiver_address: $receiver
            amount: 1
          ) {
            nonce
            domainSeparator
            deadline
            hashToSign
          }
        }
      `,
      { apiKey: ownerKey, variables: { token, owner: owner.address, app: appId, receiver: relayer.address } },
    );
    expect(result.body.errors).toBeUndefined();
    const rest = await api.post('/credit/balance', {
      chain: 'local',
      token_id: token,
      user_id: owner.address,
    });
    expect(result.body.data!.creditBalance).toEqual({
      balance: rest.body.balance,
      balance_formatted: rest.body.balance_formatted,
      decimals: 6,
    });
    expect(result.body.data!.creditTokens).toHaveLength(2);
    expect(result.body.data!.creditPermitData).toMatchObject({
      nonce: '1',
      domainSeparator: expect.any(String),
    });
  });

  it('createCreditToken and approveCredit build transactions; errors carry their code', async () => {
    const result = await graphql<{ createCreditToken: Body; approveCredit: Body }>(
      laurel.url,
      `
        mutation ($app: String!, $token: String!, $holder: String!, $spender: String!) {
          createCreditToken(
            chain: "local"
            app_id: $app
            token_name: "Bronze"
            token_symbol: "BRZ"
            token_supply: 5
            token_decimals: 2
            token_is_point: false
          ) {
            unsignedTransaction {
              to
              data
              gasLimit
              gas
              nonce
              chainId
              type
            }
          }
          approveCredit(
            chain: "local"
            token_id: $token
            holder_address: $holder
            spender_address: $spender
            amount: 1
          ) {
            unsignedTransaction {
              to
              gas
              chainId
            }
          }
        }
      `,
      {
        apiKey: ownerKey,
        variables: { app: appId, token, holder: owner.address, spender: stranger.address },
      },
    );
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data!.createCreditToken).toEqual({
      unsignedTransaction: expect.objectContaining({
        to: appId,
        chainId: 31337,
        type: 2,
        gas: expect.any(String),
      }),
    });
    expect(result.body.data!.approveCredit).toEqual({
      unsignedTransaction: { to: token, gas: expect.any(String), chainId: 31337 },
    });

    const failed = await graphql(
      laurel.url,
      `
        query ($owner: String!) {
          creditBalance(chain: "local", token_id: $owner, user_id: $owner) {
            balance
          }
        }
      `,
      { apiKey: ownerKey, variables: { owner: owner.address } },
    );
    expect(failed.body.errors![0]).toMatchObject({
      message: 'Token not found',
      extensions: { code: 'TOKEN_NOT_FOUND', http_status: 404 },
    });
  });
});
