import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Contract, ContractFactory, Signature, SigningKey, Wallet, TypedDataEncoder } from 'ethers';
import { appInterface, badgeInterface, creditTokenInterface } from '../../src/chain/contracts';
import { PERMIT_TYPES } from '../../src/modules/credit/credit.service';
import { mined } from '../helpers/chain';
import {
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
 * Every bound of the interface holds on chain: a string at its bound builds, is mined, is indexed
 * and reads back whole (REST and GraphQL); one past it is refused in the path's validation shape.
 * The interface counts characters as JavaScript does (UTF-16 code units), so 512 characters of
 * `€` are 1,536 UTF-8 bytes, the most a bound of 512 allows; `🏅` counts 2.
 */
const euro512 = '€'.repeat(512); // 1,536 bytes
const medals512 = '🏅'.repeat(256); // 512 code units, 1,024 bytes
const kanji512 = '漢'.repeat(512);
const kana512 = 'カ'.repeat(512);
const kanji256 = '漢'.repeat(256); // 768 bytes
const uri512 = `ipfs://${'€'.repeat(505)}`; // 512 characters, 1,522 bytes
const tokenUri512 = `ipfs://${'ü'.repeat(505)}`;

let laurel: TestLaurel;
let owner: Wallet;
let holder: Wallet;
let receiver: Wallet;
let ownerKey: string;
let asOwner: Client;
let asHolder: Client;
let appId: string;

const erc20 = (address: string) => new Contract(address, creditTokenInterface, laurel.chain!.provider);

/** Builds `path` as the owner, signs, sends and waits; the receipt. */
async function executed(pathName: string, body: Body) {
  const built = await asOwner.post(pathName, { chain: 'local', ...body });
  expect(built.status).toBe(200);
  return asOwner.execute(built.body.unsignedTransaction as Unsigned);
}

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  [, owner, holder, receiver] = laurel.chain!.wallets;
  const keys = await issueApiKeys(laurel.url, [owner, holder]);
  ownerKey = keys[0];
  asOwner = client(laurel.url, ownerKey, owner);
  asHolder = client(laurel.url, keys[1], holder);
  appId = await createApp(asOwner, 'Bounds');
});
afterAll(async () => {
  await laurel?.stop();
});

describe('credit and point tokens: token_name and token_symbol of 512 characters', () => {
  let credit: string;

  it('REST: a credit token named with 512 characters is created, rewarded, listed and shown in profiles', async () => {
    const receipt = await executed('/credit/new', {
      app_id: appId,
      token_name: euro512,
      token_symbol: medals512,
      token_supply: 0,
      token_decimals: 6,
      token_is_point: false,
    });
    credit = eventArg(receipt.logs, appInterface, 'CreditTokenCreated', 'token');
    expect(await erc20(credit).name()).toBe(euro512);
    expect(await erc20(credit).symbol()).toBe(medals512);

    // Rewarded: minted to the holder by the app.
    await executed('/reward/credit', {
      action_id: 'long-name',
      receiver: holder.address,
      app_id: appId,
      token_address: credit,
      amount: 40,
      mint: true,
    });
    const profile = await waitUntil('the reward in the holder’s profile', async () => {
      const answer = await asOwner.get(`/profile?chain=local&user_id=${holder.address}&app_id=${appId}`);
      const balances = (answer.body.credit_balances ?? []) as {
        token_id: string;
        token_balance_formatted: string;
      }[];
      return (
        balances.some((entry) => entry.token_id === credit && entry.token_balance_formatted === '40') &&
        answer
      );
    });
    expect(profile.body.credit_balances).toContainEqual({
      token_id: credit,
      token_name: euro512,
      token_balance: '40000000',
      token_balance_formatted: '40',
      token_symbol: medals512,
      token_decimals: 6,
    });
    const listed = await asOwner.get(`/credit/tokens?chain=local&app_id=${appId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.tokens).toContainEqual({
      id: credit,
      name: euro512,
      symbol: medals512,
      decimals: 6,
      is_point: false,
    });
  });

  it('its permits verify: permit-data gives the token’s domain; signed, permit() then transferFrom move the tokens', async () => {
    const permit = await asHolder.post('/credit/permit-data', {
      chain: 'local',
      token_id: credit,
      holder_address: holder.address,
      receiver_address: receiver.address,
      amount: 15,
    });
    expect(permit.status).toBe(200);
    const data = permit.body.permitData as {
      nonce: string;
      domainSeparator: string;
      deadline: number;
      hashToSign: string;
      domain: { name: string; version: string; chainId: number; verifyingContract: string };
    };
    expect(data.domain).toEqual({ name: euro512, version: '1', chainId: 31337, verifyingContract: credit });
    expect(data.domainSeparator).toBe(await erc20(credit).DOMAIN_SEPARATOR());
    expect(TypedDataEncoder.hashDomain(data.domain)).toBe(data.domainSeparator);

    // eth_signTypedData_v4 on the given domain is the same signature as the raw digest.
    const value = 15_000_000n;
    const message = {
      owner: holder.address,
      spender: receiver.address,
      value,
      nonce: 0n,
      deadline: data.deadline,
    };
    const typed = Signature.from(await holder.signTypedData(data.domain, PERMIT_TYPES, message));
    expect(Signature.from(new SigningKey(holder.privateKey).sign(data.hashToSign)).serialized).toBe(
      typed.serialized,
    );

    const token = erc20(credit).connect(receiver) as Contract;
    await mined(
      token.permit(holder.address, receiver.address, value, data.deadline, typed.v, typed.r, typed.s),
    );
    expect(await erc20(credit).allowance(holder.address, receiver.address)).toBe(value);
    await mined(token.transferFrom(holder.address, receiver.address, value));
    expect(await erc20(credit).balanceOf(receiver.address)).toBe(value);
    expect(await erc20(credit).balanceOf(holder.address)).toBe(25_000_000n);
  });

  it('GraphQL: a point token named with 512 characters is created, rewarded and shown in profiles', async () => {
    const built = await graphql<{ createCreditToken: { unsignedTransaction: Unsigned } }>(
      laurel.url,
      `
        mutation ($app: String!, $name: String!, $symbol: String!) {
          createCreditToken(
            chain: "local"
            app_id: $app
            token_name: $name
            token_symbol: $symbol
            token_supply: 0
            token_decimals: 0
            token_is_point: true
          ) {
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
      { apiKey: ownerKey, variables: { app: appId, name: kanji512, symbol: kana512 } },
    );
    expect(built.body.errors).toBeUndefined();
    const receipt = await asOwner.execute(built.body.data!.createCreditToken.unsignedTransaction);
    const points = eventArg(receipt.logs, appInterface, 'CreditTokenCreated', 'token');

    const reward = await graphql<{ rewardPoint: { unsignedTransaction: Unsigned } }>(
      laurel.url,
      `
        mutation ($app: String!, $token: String!, $user: String!) {
          rewardPoint(
            chain: "local"
            action_id: "points"
            app_id: $app
            token_address: $token
            receiver: $user
            amount: 3
          ) {
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
      { apiKey: ownerKey, variables: { app: appId, token: points, user: holder.address } },
    );
    expect(reward.body.errors).toBeUndefined();
    await asOwner.execute(reward.body.data!.rewardPoint.unsignedTransaction);

    const profileQuery = () =>
      graphql<{ profile: { credit_balances: Record<string, unknown>[] } }>(
        laurel.url,
        `
          query ($app: String!, $user: String!) {
            profile(chain: "local", app_id: $app, user_id: $user) {
              credit_balances {
                token_id
                token_name
                token_symbol
                token_balance
                token_decimals
              }
            }
          }
        `,
        { apiKey: ownerKey, variables: { app: appId, user: holder.address } },
      );
    const entry = await waitUntil('the points in the GraphQL profile', async () => {
      const answer = await profileQuery();
      return answer.body.data?.profile.credit_balances.find(
        (balance) => balance.token_id === points && balance.token_balance === '3',
      );
    });
    expect(entry).toEqual({
      token_id: points,
      token_name: kanji512,
      token_symbol: kana512,
      token_balance: '3',
      token_decimals: 0,
    });
  });

  it('one character past the bound is refused in the validation shape (REST Shape B, GraphQL BAD_USER_INPUT)', async () => {
    const body = {
      chain: 'local',
      app_id: appId,
      token_name: `${euro512}€`,
      token_symbol: `${medals512}x`,
      token_supply: 0,
      token_decimals: 0,
      token_is_point: false,
    };
    const refused = await asOwner.post('/credit/new', body);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: 'validation_error',
        message: expect.any(String),
        issues: [
          expect.objectContaining({ code: 'too_big', parameter: 'token_name', path: 'token_name' }),
          expect.objectContaining({ code: 'too_big', parameter: 'token_symbol', path: 'token_symbol' }),
        ],
      },
    });
    const viaGraphql = await graphql(
      laurel.url,
      `
        mutation ($app: String!, $name: String!) {
          createCreditToken(
            chain: "local"
            app_id: $app
            token_name: $name
            token_symbol: "S"
            token_supply: 0
            token_decimals: 0
            token_is_point: false
          ) {
            unsignedTransaction {
              nonce
            }
          }
        }
      `,
      { apiKey: ownerKey, variables: { app: appId, name: `${kanji512}漢` } },
    );
    expect(viaGraphql.body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [expect.objectContaining({ code: 'too_big', path: ['token_name'] })],
    });
  });
});

describe('a token deployed with the bytecode before issue 46 (OpenZeppelin’s ShortString domain)', () => {
  it('still gets permit data on its own domain, and its permit transfer goes through', async () => {
    const legacy = JSON.parse(
      readFileSync(path.join(__dirname, '../fixtures/legacy/CreditToken-shortstring-domain.json'), 'utf8'),
    ) as { abi: never[]; bytecode: string };
    const factory = new ContractFactory(legacy.abi, legacy.bytecode, owner);
    const deployed = await factory.deploy(
      'Legacy Gold',
      'LGD',
      6,
      false,
      appId,
      holder.address,
      100_000_000n,
    );
    await deployed.waitForDeployment();
    const address = await deployed.getAddress();

    const permit = await asHolder.post('/credit/permit-data', {
      chain: 'local',
      token_id: address,
      holder_address: holder.address,
      receiver_address: receiver.address,
      amount: 7,
    });
    expect(permit.status).toBe(200);
    const data = permit.body.permitData as { deadline: number; hashToSign: string; domain: object };
    expect(data.domain).toEqual({
      name: 'Legacy Gold',
      version: '1',
      chainId: 31337,
      verifyingContract: address,
    });

    const { r, s, v } = Signature.from(new SigningKey(holder.privateKey).sign(data.hashToSign));
    const [receiverKey] = await issueApiKeys(laurel.url, [receiver]);
    const asReceiver = client(laurel.url, receiverKey, receiver);
    const built = await asReceiver.post('/credit/transfer', {
      chain: 'local',
      token_id: address,
      holder_address: holder.address,
      receiver_address: receiver.address,
      amount: 7,
      deadline: data.deadline,
      signedPermit: { r, s, v },
    });
    expect(built.status).toBe(200);
    await asReceiver.execute(built.body.unsignedTransaction as Unsigned);
    expect(await erc20(address).balanceOf(receiver.address)).toBe(7_000_000n);
  });
});

describe('badges: badge_name of 256 characters, base_uri and token URIs of 512', () => {
  let badge: string;

  it('REST: created, indexed and listed whole; rewarded with a 512-character token URI, shown in the profile', async () => {
    const receipt = await executed('/badge/new', { app_id: appId, badge_name: kanji256, base_uri: uri512 });
    badge = eventArg(receipt.logs, appInterface, 'BadgeCreated', 'badge');
    const onChain = new Contract(badge, badgeInterface, laurel.chain!.provider);
    expect(await onChain.name()).toBe(kanji256);
    expect(await onChain.baseURI()).toBe(uri512);

    await executed('/reward/badge', {
      action_id: 'long-uri',
      receiver: holder.address,
      app_id: appId,
      amount: 1,
      badge_name: kanji256,
      base_uri: tokenUri512,
    });
    expect(await onChain.tokenURI(1)).toBe(tokenUri512);

    const listed = await waitUntil('the badge listed with its holder', async () => {
      const answer = await asOwner.get(`/badges?chain=local&app_id=${appId}`);
      const found = (answer.body.badges as { id: string; holders: number }[]).find(
        (entry) => entry.id === badge,
      );
      return found && found.holders === 1 && found;
    });
    expect(listed).toEqual({ id: badge, name: kanji256, metadataURI: uri512, metadata: null, holders: 1 });
    const profile = await asOwner.get(`/profile?chain=local&user_id=${holder.address}&app_id=${appId}`);
    expect(profile.body.collected_badges).toContainEqual(
      expect.objectContaining({ id: badge, name: kanji256, metadataURI: uri512 }),
    );
  });

  it('GraphQL: the badge reads back whole', async () => {
    const answer = await graphql<{ badges: { id: string; name: string; metadataURI: string }[] }>(
      laurel.url,
      `
        query ($app: String!) {
          badges(chain: "local", app_id: $app) {
            id
            name
            metadataURI
          }
        }
      `,
      { apiKey: ownerKey, variables: { app: appId } },
    );
    expect(answer.body.data!.badges).toContainEqual({ id: badge, name: kanji256, metadataURI: uri512 });
  });

  it('one past the bounds is refused in each path’s validation shape', async () => {
    const created = await asOwner.post('/badge/new', {
      chain: 'local',
      app_id: appId,
      badge_name: `${kanji256}漢`,
      base_uri: `${uri512}x`,
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ status: 'failed' });
    expect(
      (created.body.issues as { code: string; path: string[] }[]).map((issue) => [issue.code, issue.path]),
    ).toEqual([
      ['too_big', ['badge_name']],
      ['too_big', ['base_uri']],
    ]);
    const rewarded = await asOwner.post('/reward/badge', {
      chain: 'local',
      action_id: 'long-uri',
      receiver: holder.address,
      app_id: appId,
      amount: 1,
      badge_name: kanji256,
      base_uri: `${tokenUri512}x`,
    });
    expect(rewarded.status).toBe(400);
    expect(rewarded.body).toMatchObject({
      success: false,
      error: { name: 'ZodError', issues: [expect.objectContaining({ code: 'too_big', path: ['base_uri'] })] },
    });
  });
});

describe('apps: name of 256 characters', () => {
  it('REST and GraphQL: created, indexed and listed whole; 257 refused', async () => {
    const name = 'ア'.repeat(256);
    const app = await createApp(asOwner, name);
    const listed = await waitUntil('the app listed', async () => {
      const answer = await asOwner.get('/apps?chain=local');
      return (answer.body.apps as { id: string; name: string }[]).find((entry) => entry.id === app);
    });
    expect(listed.name).toBe(name);
    const viaGraphql = await graphql<{ apps: { id: string; name: string }[] }>(
      laurel.url,
      `
        {
          apps(chain: "local") {
            id
            name
          }
        }
      `,
      { apiKey: ownerKey },
    );
    expect(viaGraphql.body.data!.apps).toContainEqual({ id: app, name });

    const refused = await asOwner.post('/app/new', { chain: 'local', name: `${name}ア` });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      status: 'failed',
      issues: [expect.objectContaining({ code: 'too_big', path: ['name'] })],
    });
  });
});

describe('text that is not well-formed Unicode', () => {
  // A JSON `\ud800` escape makes a lone surrogate, which no UTF-8 encoder (ethers', PostgreSQL's) writes.
  const lone = 'x\ud800';
  const notWellFormed = (path: string[]) =>
    expect.objectContaining({
      code: 'custom',
      path,
      message: 'Invalid: not well-formed Unicode text (a lone UTF-16 surrogate)',
    });

  it('is refused in each path’s validation shape, REST and GraphQL, not a 500', async () => {
    const app = await asOwner.post('/app/new', { chain: 'local', name: lone });
    expect(app).toMatchObject({ status: 400, body: { status: 'failed', issues: [notWellFormed(['name'])] } });

    const badge = await asOwner.post('/badge/new', {
      chain: 'local',
      app_id: appId,
      badge_name: 'B',
      base_uri: lone,
    });
    expect(badge).toMatchObject({
      status: 400,
      body: { status: 'failed', issues: [notWellFormed(['base_uri'])] },
    });

    const credit = await asOwner.post('/credit/new', {
      chain: 'local',
      app_id: appId,
      token_name: 'T',
      token_symbol: `\udc00${lone}`,
      token_supply: 0,
      token_decimals: 0,
      token_is_point: false,
    });
    expect(credit.status).toBe(400);
    expect(credit.body).toMatchObject({
      success: false,
      error: {
        code: 'validation_error',
        issues: [
          expect.objectContaining({ code: 'custom', parameter: 'token_symbol', path: 'token_symbol' }),
        ],
      },
    });

    const reward = await asOwner.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      action_id: lone,
      receiver: receiver.address,
      amount: 1,
    });
    expect(reward).toMatchObject({
      status: 400,
      body: { success: false, error: { name: 'ZodError', issues: [notWellFormed(['action_id'])] } },
    });

    const viaGraphql = await graphql(
      laurel.url,
      'mutation ($name: String!) { createApp(chain: "local", name: $name) { unsignedTransaction { nonce } } }',
      { apiKey: ownerKey, variables: { name: lone } },
    );
    expect(viaGraphql.body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      issues: [notWellFormed(['name'])],
    });
  });

  it('builds when its surrogates pair up (🏅)', async () => {
    const built = await asOwner.post('/app/new', { chain: 'local', name: '\ud83c\udfc5' });
    expect(built.status).toBe(200);
  });
});
