import { Signature, type Wallet } from 'ethers';
import { revertHint } from '../../src/chain/reverts';
import {
  UNSIGNED_TX_WITH_GAS,
  client,
  createApp,
  createCreditToken,
  issueApiKeys,
  type Body,
  type Client,
  type Unsigned,
} from '../helpers/flow';
import { graphql, startTestLaurel, type TestLaurel } from '../helpers/laurel';

/**
 * POST /v1/credit/transfer, the original service's endpoint for a signed permit, driven the way a
 * client following the original reference does: POST /credit/permit-data, the holder signs
 * `hashToSign` as a raw digest (`wallet.signingKey.sign(hashToSign)` → r, s, v), POST
 * /credit/transfer with `signedPermit`, the receiver signs the unsigned transaction and sends it
 * through execute-and-wait. The tokens move on chain; bad permits answer Shape B `transaction_error`.
 */
let laurel: TestLaurel;
let holder: Wallet; // owns the app and holds the tokens
let receiver: Wallet; // the permit's spender: builds, signs and sends the transfer
let stranger: Wallet;
let asHolder: Client;
let asReceiver: Client;
let receiverKey: string;

let token: string; // "Gold", 6 decimals, 1000 minted to the holder
let pointToken: string;

interface PermitData {
  nonce: string;
  domainSeparator: string;
  deadline: number;
  hashToSign: string;
}

/** POST /credit/permit-data for the holder → receiver permit of `amount`. */
async function permitData(amount: number, tokenId = token): Promise<PermitData> {
  const result = await asReceiver.post('/credit/permit-data', {
    chain: 'local',
    token_id: tokenId,
    holder_address: holder.address,
    receiver_address: receiver.address,
    amount,
  });
  expect(result.status).toBe(200);
  return result.body.permitData as PermitData;
}

/** The original reference's signing: the raw digest, split into r, s, v. */
function signDigest(wallet: Wallet, hashToSign: string): { r: string; s: string; v: number } {
  const { r, s, v } = Signature.from(wallet.signingKey.sign(hashToSign));
  return { r, s, v };
}

/** The original reference's request body. */
const transferBody = (amount: number, permit: PermitData, signedPermit: object, overrides: Body = {}) => ({
  chain: 'local',
  token_id: token,
  holder_address: holder.address,
  receiver_address: receiver.address,
  amount,
  deadline: permit.deadline,
  signedPermit,
  ...overrides,
});

async function balanceOf(address: string, tokenId = token): Promise<string> {
  const result = await asReceiver.post('/credit/balance', {
    chain: 'local',
    token_id: tokenId,
    user_id: address,
  });
  return (result.body as { balance_formatted: string }).balance_formatted;
}

/** The Shape B `transaction_error` of a transferWithPermit simulation that reverted with `errorName`. */
function transferReverted(errorName: string) {
  return {
    success: false,
    error: {
      code: 'transaction_error',
      message: expect.stringContaining(`: ${revertHint(errorName, 'transferWithPermit')}`),
      transaction_error: expect.objectContaining({
        reason: expect.stringMatching(new RegExp(`^${errorName}\\(`)),
        contract_address: token,
        chain_id: 31337,
        function_name: 'transferWithPermit',
        data: expect.objectContaining({ errorName }),
      }),
    },
  };
}

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, , , , , holder, receiver, stranger] = laurel.chain!.wallets;
  const [holderKey, key] = await issueApiKeys(laurel.url, [holder, receiver]);
  receiverKey = key;
  asHolder = client(laurel.url, holderKey, holder);
  asReceiver = client(laurel.url, receiverKey, receiver);
  const appId = await createApp(asHolder, 'Transfers');
  token = await createCreditToken(asHolder, appId, {
    token_name: 'Gold',
    token_symbol: 'GLD',
    token_supply: 1000,
    token_decimals: 6,
    token_is_point: false,
  });
  pointToken = await createCreditToken(asHolder, appId, {
    token_name: 'Stars',
    token_symbol: 'STR',
    token_supply: 10,
    token_decimals: 0,
    token_is_point: true,
  });
});
afterAll(async () => {
  await laurel?.stop();
});

describe('POST /credit/transfer', () => {
  it('permit-data → holder signs hashToSign → transfer → receiver signs → execute: the tokens move', async () => {
    const permit = await permitData(12.5);
    const built = await asReceiver.post(
      '/credit/transfer',
      transferBody(12.5, permit, signDigest(holder, permit.hashToSign)),
    );
    expect(built.status).toBe(200);
    // The published answer: success, and an unsigned transaction with gas, from the receiver to the token.
    expect(built.body).toEqual({
      success: true,
      unsignedTransaction: { ...UNSIGNED_TX_WITH_GAS, to: token },
    });

    const receipt = await asReceiver.execute(built.body.unsignedTransaction as Unsigned);
    // The permit's Approval and the transfer, in one transaction sent (and paid for) by the receiver.
    expect(receipt.logs).toHaveLength(2);
    expect(await balanceOf(holder.address)).toBe('987.5');
    expect(await balanceOf(receiver.address)).toBe('12.5');
    // The permit is used up: the holder's permit nonce moved on.
    expect((await permitData(1)).nonce).toBe('1');
  });

  it('answers a permit used twice, a changed amount, another holder or another signer with the decoded ERC2612InvalidSigner', async () => {
    const permit = await permitData(2);
    const signed = signDigest(holder, permit.hashToSign);
    const cases: Body[] = [
      transferBody(3, permit, signed), // not the amount signed
      transferBody(2, permit, signed, { holder_address: stranger.address }), // not the holder who signed
      transferBody(2, permit, signDigest(stranger, permit.hashToSign)), // signed by someone else
      transferBody(2, { ...permit, deadline: permit.deadline + 1 }, signed), // not the deadline signed
    ];
    for (const body of cases) {
      const result = await asReceiver.post('/credit/transfer', body);
      expect({ status: result.status, body: result.body }).toEqual({
        status: 422,
        body: transferReverted('ERC2612InvalidSigner'),
      });
    }

    // The right one goes through once; the same permit again is refused (its nonce is spent).
    const once = await asReceiver.post('/credit/transfer', transferBody(2, permit, signed));
    await asReceiver.execute(once.body.unsignedTransaction as Unsigned);
    const again = await asReceiver.post('/credit/transfer', transferBody(2, permit, signed));
    expect(again.status).toBe(422);
    expect(again.body).toEqual(transferReverted('ERC2612InvalidSigner'));
  });

  it('answers a permit for more than the holder has with the decoded ERC20InsufficientBalance', async () => {
    const permit = await permitData(5000);
    const result = await asReceiver.post(
      '/credit/transfer',
      transferBody(5000, permit, signDigest(holder, permit.hashToSign)),
    );
    expect(result.status).toBe(422);
    expect(result.body).toEqual(transferReverted('ERC20InsufficientBalance'));
  });

  it('answers validation errors, a receiver other than the caller, a point token and an unknown token in Shape B', async () => {
    const permit = await permitData(1);
    const signed = signDigest(holder, permit.hashToSign);

    const badSignature = await asReceiver.post(
      '/credit/transfer',
      transferBody(1, permit, { ...signed, r: '0x1234' }, { deadline: undefined }),
    );
    expect(badSignature.status).toBe(400);
    expect(badSignature.body).toEqual({
      success: false,
      error: {
        code: 'validation_error',
        message: expect.stringContaining('signedPermit.r: Invalid: expected 32 bytes'),
        issues: [
          expect.objectContaining({ code: 'invalid_type', parameter: 'deadline', path: 'deadline' }),
          expect.objectContaining({
            code: 'invalid_string',
            parameter: 'signedPermit.r',
            path: 'signedPermit.r',
          }),
        ],
      },
    });

    const notCaller = await asReceiver.post(
      '/credit/transfer',
      transferBody(1, permit, signed, { receiver_address: stranger.address }),
    );
    expect(notCaller.status).toBe(400);
    expect((notCaller.body.error as { issues: Body[] }).issues).toEqual([
      {
        code: 'custom',
        message: `receiver_address must be the caller's own wallet (${receiver.address}): the permit lets the receiver spend, so the receiver sends the transfer and pays its gas`,
        parameter: 'receiver_address',
        path: 'receiver_address',
      },
    ]);

    const point = await asReceiver.post(
      '/credit/transfer',
      transferBody(1, permit, signed, { token_id: pointToken }),
    );
    expect(point.status).toBe(400);
    expect((point.body.error as { message: string }).message).toBe(
      'token_id: Point tokens are non-transferable: they cannot be transferred',
    );

    const unknown = await asReceiver.post(
      '/credit/transfer',
      transferBody(1, permit, signed, { token_id: stranger.address }),
    );
    expect(unknown).toMatchObject({
      status: 404,
      body: { success: false, error: { code: 'token_not_found', message: 'Token not found' } },
    });
  });

  it('is the mutation transferCredit over GraphQL, with signedPermit as an input object', async () => {
    const permit = await permitData(0.25);
    const result = await graphql<{ transferCredit: { unsignedTransaction: Unsigned } }>(
      laurel.url,
      `
        mutation (
          $token: String!
          $holder: String!
          $receiver: String!
          $deadline: Int!
          $permit: SignedPermit!
        ) {
          transferCredit(
            chain: "local"
            token_id: $token
            holder_address: $holder
            receiver_address: $receiver
            amount: "0.25"
            deadline: $deadline
            signedPermit: $permit
          ) {
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
      {
        apiKey: receiverKey,
        variables: {
          token,
          holder: holder.address,
          receiver: receiver.address,
          deadline: permit.deadline,
          permit: signDigest(holder, permit.hashToSign),
        },
      },
    );
    expect(result.body.errors).toBeUndefined();
    const before = Number(await balanceOf(receiver.address));
    await asReceiver.execute(result.body.data!.transferCredit.unsignedTransaction);
    expect(Number(await balanceOf(receiver.address))).toBe(before + 0.25);
  });

  it('answers an expired permit with the decoded ERC2612ExpiredSignature', async () => {
    const permit = await permitData(1);
    const signed = signDigest(holder, permit.hashToSign);
    // The chain's clock passes the deadline (the last test of this file: time only moves on).
    const provider = laurel.chain!.provider;
    const latest = (await provider.getBlock('latest'))!;
    await provider.send('evm_setNextBlockTimestamp', [permit.deadline + 1]);
    await provider.send('evm_mine', []);
    expect((await provider.getBlock('latest'))!.timestamp).toBeGreaterThan(latest.timestamp);
    const result = await asReceiver.post('/credit/transfer', transferBody(1, permit, signed));
    expect(result.status).toBe(422);
    expect(result.body).toEqual(transferReverted('ERC2612ExpiredSignature'));
    expect((result.body.error as { transaction_error: { reason: string } }).transaction_error.reason).toBe(
      `ERC2612ExpiredSignature(${permit.deadline})`,
    );
  });
});
