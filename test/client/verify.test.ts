import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Contract, Interface, Signature, Wallet, type TransactionRequest } from 'ethers';
import { privateKeyToAccount } from 'viem/accounts';
import { toBaseUnits as serverToBaseUnits } from '../../src/chain/amounts';
import {
  Laurel,
  laurelAbis,
  sendVerified,
  signIn,
  toBaseUnits,
  TransactionMismatchError,
  verifiedPermitData,
  type ExecutedAndWaited,
  type UnsignedTransaction,
} from '../../packages/client/src/index';
import { anvilDevPrivateKeys } from '../helpers/chain';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';

const chain = 'local';
const appInterface = new Interface(laurelAbis.App);
let laurel: TestLaurel;
let keys: string[];

beforeAll(async () => {
  laurel = await startTestLaurel({ chain: true });
  keys = anvilDevPrivateKeys(10);
});
afterAll(async () => {
  await laurel?.stop();
});

/** A dev account's ethers Wallet on the test chain, signed in to its own client. */
async function ethersUser(index: number, url = laurel.url): Promise<{ wallet: Wallet; client: Laurel }> {
  const wallet = new Wallet(keys[index]!, laurel.chain!.provider);
  const client = new Laurel({ url });
  await signIn(client, wallet);
  return { wallet, client };
}

function succeeded(executed: ExecutedAndWaited): ExecutedAndWaited {
  expect(executed).toMatchObject({ status: 'success', transactionHash: expect.stringMatching(/^0x/) });
  return executed;
}

const created = (executed: ExecutedAndWaited, kind: 'apps' | 'badges' | 'credit_tokens'): string =>
  succeeded(executed).created![kind][0]!;

const erc20 = (address: string) => new Contract(address, laurelAbis.CreditToken, laurel.chain!.provider);

describe('amounts', () => {
  it('converts exactly as Laurel does (drift test against the server)', () => {
    for (const [amount, decimals] of [
      [1.5, 18],
      [0.1, 18],
      [1e21, 18],
      [1e-7, 18],
      [123.456789, 6],
      [5, 0],
      [0.000001, 6],
      ['2.250', 2],
      ['1E2', 0],
      ['15e-1', 1],
    ] as const) {
      expect(toBaseUnits(amount, decimals)).toBe(serverToBaseUnits(amount, decimals, 'amount'));
    }
    expect(() => toBaseUnits(1.5, 0)).toThrow('more than 0 decimal places');
  });
});

describe('verify before signing, against a real Laurel', () => {
  it('builds, verifies, signs and executes every builder with an ethers Wallet', async () => {
    const { wallet: owner, client } = await ethersUser(1);
    const operator = Wallet.createRandom().address;
    const user = Wallet.createRandom().address;
    const wait = { wait: true } as const;

    const app = created(
      await sendVerified(client, owner, '/v1/app/new', { chain, name: 'Verified game' }, wait),
      'apps',
    );
    succeeded(
      await sendVerified(
        client,
        owner,
        '/v1/app/operator/add',
        { chain, app_id: app, operator_address: operator },
        wait,
      ),
    );
    succeeded(
      await sendVerified(
        client,
        owner,
        '/v1/app/operator/remove',
        { chain, app_id: app, operator_address: operator },
        wait,
      ),
    );
    const badge = created(
      await sendVerified(client, owner, '/v1/badge/new', { chain, app_id: app, badge_name: 'gold' }, wait),
      'badges',
    );
    const gems = created(
      await sendVerified(
        client,
        owner,
        '/v1/credit/new',
        {
          chain,
          app_id: app,
          token_name: 'Gems',
          token_symbol: 'GEM',
          token_supply: 1000.5,
          token_decimals: 6,
          token_is_point: false,
        },
        wait,
      ),
      'credit_tokens',
    );
    const points = created(
      await sendVerified(
        client,
        owner,
        '/v1/credit/new',
        {
          chain,
          app_id: app,
          token_name: 'Stars',
          token_symbol: 'STR',
          token_supply: 0,
          token_decimals: 2,
          token_is_point: true,
        },
        wait,
      ),
      'credit_tokens',
    );
    expect(await erc20(gems).getFunction('balanceOf')(owner.address)).toBe(1_000_500_000n);

    const reward = { chain, app_id: app, receiver: user, action_id: 'quest' };
    succeeded(await sendVerified(client, owner, '/v1/reward/XP', { ...reward, amount: 1.5 }, wait));
    succeeded(
      await sendVerified(
        client,
        owner,
        '/v1/reward/badge',
        { ...reward, badge_name: 'gold', amount: 1 },
        wait,
      ),
    );
    succeeded(
      await sendVerified(client, owner, '/v1/reward/badge', { ...reward, badge_id: badge, amount: 2 }, wait),
    );
    succeeded(
      await sendVerified(
        client,
        owner,
        '/v1/reward/credit',
        { ...reward, token_address: gems, amount: 2.25, mint: true },
        wait,
      ),
    );
    succeeded(
      await sendVerified(
        client,
        owner,
        '/v1/credit/approve',
        { chain, token_id: gems, holder_address: owner.address, spender_address: app, amount: 10 },
        wait,
      ),
    );
    succeeded(
      await sendVerified(
        client,
        owner,
        '/v1/reward/credit',
        { ...reward, token_address: gems, amount: 3 },
        wait,
      ),
    );
    succeeded(
      await sendVerified(
        client,
        owner,
        '/v1/reward/point',
        // An address as the interface allows it, without 0x (not an ENS name to the wallet's provider).
        { ...reward, token_address: points.slice(2), amount: 4.5 },
        wait,
      ),
    );
    succeeded(
      await sendVerified(
        client,
        owner,
        '/v1/reward/batch',
        {
          chain,
          app_id: app,
          items: [
            { kind: 'xp', receiver: user, action_id: 'b1', amount: 0.25 },
            { kind: 'badge', receiver: user, action_id: 'b2', amount: 1, badge_name: 'gold' },
            { kind: 'credit', receiver: user, action_id: 'b3', amount: 1, token_address: gems, mint: true },
            // `mint` left out: false, a transfer (optional in the types too).
            { kind: 'credit', receiver: user, action_id: 'b4', amount: 0.5, token_address: gems },
            { kind: 'point', receiver: user, action_id: 'b5', amount: 1, token_address: points },
          ],
        },
        wait,
      ),
    );
    expect(await erc20(gems).getFunction('balanceOf')(user)).toBe(6_750_000n);
    expect(await erc20(points).getFunction('balanceOf')(user)).toBe(550n);
    const badges = new Contract(badge, laurelAbis.Badge, laurel.chain!.provider);
    expect(await badges.getFunction('balanceOf')(user)).toBe(4n);

    // A permit signed by the holder (checked first), then the receiver's transfer with it.
    const { wallet: receiver, client: receiverClient } = await ethersUser(2);
    const permitRequest = {
      chain,
      token_id: gems,
      holder_address: owner.address,
      receiver_address: receiver.address,
      amount: 7,
    };
    const permit = await verifiedPermitData(client, permitRequest, { provider: laurel.chain!.provider });
    const { r, s, v } = Signature.from(owner.signingKey.sign(permit.hashToSign));
    succeeded(
      await sendVerified(
        receiverClient,
        receiver,
        '/v1/credit/transfer',
        { ...permitRequest, deadline: permit.deadline, signedPermit: { r, s, v } },
        wait,
      ),
    );
    expect(await erc20(gems).getFunction('balanceOf')(receiver.address)).toBe(7_000_000n);
  });

  it('does the same with a viem account, reading decimals and badges from Laurel when no provider is given', async () => {
    const account = privateKeyToAccount(keys[3] as `0x${string}`);
    const client = new Laurel({ url: laurel.url });
    await signIn(client, account);
    const wait = { wait: true } as const;
    const user = Wallet.createRandom().address;
    const app = created(
      await sendVerified(client, account, '/v1/app/new', { chain, name: 'Viem game' }, wait),
      'apps',
    );
    created(
      await sendVerified(
        client,
        account,
        '/v1/badge/new',
        { chain, app_id: app, badge_name: 'silver' },
        wait,
      ),
      'badges',
    );
    const coins = created(
      await sendVerified(
        client,
        account,
        '/v1/credit/new',
        {
          chain,
          app_id: app,
          token_name: 'Coins',
          token_symbol: 'C',
          token_supply: 0,
          token_decimals: 3,
          token_is_point: false,
        },
        wait,
      ),
      'credit_tokens',
    );
    // Without a provider the badge's name is checked against Laurel's list (from its index).
    await waitUntil('the badge in Laurel’s list', async () => {
      const { badges } = await client.call(
        client.api.GET('/v1/badges', { params: { query: { chain, app_id: app } } }),
      );
      return badges.length === 1;
    });
    const reward = { chain, app_id: app, receiver: user, action_id: 'viem' };
    succeeded(await sendVerified(client, account, '/v1/reward/XP', { ...reward, amount: 2 }, wait));
    succeeded(
      await sendVerified(
        client,
        account,
        '/v1/reward/batch',
        {
          chain,
          app_id: app,
          items: [
            { kind: 'badge', receiver: user, action_id: 'v1', amount: 1, badge_name: 'silver' },
            {
              kind: 'credit',
              receiver: user,
              action_id: 'v2',
              amount: 1.25,
              token_address: coins,
              mint: true,
            },
          ],
        },
        wait,
      ),
    );
    expect(await erc20(coins).getFunction('balanceOf')(user)).toBe(1250n);
    // And with the chain's provider given: the nonce is checked against the account's pending one.
    const executed = await sendVerified(
      client,
      account,
      '/v1/reward/XP',
      { ...reward, amount: 1 },
      {
        provider: laurel.chain!.provider,
      },
    );
    expect(executed).toMatchObject({ transactionHash: expect.stringMatching(/^0x/) });
  });
});

// ------------------------------------------------------------------ a tampering proxy

/**
 * A real HTTP server in front of Laurel that forwards everything, rewrites the answers of builds
 * (and of permit-data) with `tamper` when set, and counts what reaches execute.
 */
interface TamperingProxy {
  url: string;
  /** Alters the answers of builds. */
  tamper?: (answer: Record<string, unknown>) => void;
  /** Alters GET /v1/chains' answer. */
  tamperChains?: (answer: Record<string, unknown>) => void;
  executes: number;
  close(): Promise<void>;
}

async function startProxy(target: string): Promise<TamperingProxy> {
  const proxy: TamperingProxy = { url: '', executes: 0, close: async () => undefined };
  const { host } = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '/';
    if (path.startsWith('/v1/transactions/execute')) proxy.executes++;
    const builds =
      /^\/v1\/(app\/new|app\/operator\/|badge\/new|credit\/(new|approve|transfer|permit-data)|reward\/)/.test(
        path,
      );
    const rewrite = builds ? proxy.tamper : path.startsWith('/v1/chains') ? proxy.tamperChains : undefined;
    const upstream = httpRequest(
      `${target}${path}`,
      { method: incoming.method, headers: { ...incoming.headers, host } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          if (rewrite && answer.statusCode === 200) {
            const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
            rewrite(json);
            body = Buffer.from(JSON.stringify(json));
          }
          const headers = { ...answer.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          outgoing.writeHead(answer.statusCode ?? 502, headers).end(body);
        });
      },
    );
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

describe('a tampered build is refused before signing', () => {
  let proxy: TamperingProxy;
  let owner: Wallet;
  let client: Laurel;
  let app: string;
  let gems: string;
  let signatures = 0;
  /** The owner's wallet, counting the transactions it signs. */
  let counted: Wallet;
  const user = Wallet.createRandom().address;

  beforeAll(async () => {
    proxy = await startProxy(laurel.url);
    ({ wallet: owner, client } = await ethersUser(4, proxy.url));
    counted = new (class extends Wallet {
      override signTransaction(tx: TransactionRequest): Promise<string> {
        signatures++;
        return super.signTransaction(tx);
      }
    })(owner.privateKey, laurel.chain!.provider);
    app = created(
      await sendVerified(client, owner, '/v1/app/new', { chain, name: 'Target' }, { wait: true }),
      'apps',
    );
    gems = created(
      await sendVerified(
        client,
        owner,
        '/v1/credit/new',
        {
          chain,
          app_id: app,
          token_name: 'G',
          token_symbol: 'G',
          token_supply: 100,
          token_decimals: 6,
          token_is_point: false,
        },
        { wait: true },
      ),
      'credit_tokens',
    );
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('refuses another badge than the one named, checked against the app’s badges on the chain', async () => {
    const badge = async (badge_name: string) =>
      created(
        await sendVerified(
          client,
          owner,
          '/v1/badge/new',
          { chain, app_id: app, badge_name },
          { wait: true },
        ),
        'badges',
      );
    const gold = await badge('gold');
    const silver = await badge('silver');
    proxy.tamper = (answer) => {
      const parsed = appInterface.parseTransaction({ data: tx(answer).data })!;
      tx(answer).data = appInterface.encodeFunctionData('rewardBadge', [silver, ...parsed.args.slice(1)]);
    };
    try {
      const refused = await sendVerified(client, counted, '/v1/reward/badge', {
        chain,
        app_id: app,
        receiver: user,
        action_id: 'badge',
        amount: 1,
        badge_name: 'gold',
      }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TransactionMismatchError);
      expect(refused).toMatchObject({
        field: 'args.badge',
        expected: gold.toLowerCase(),
        actual: silver.toLowerCase(),
      });
    } finally {
      proxy.tamper = undefined;
    }
    expect(signatures).toBe(0);
  });

  const tx = (answer: Record<string, unknown>) => answer.unsignedTransaction as UnsignedTransaction;
  const other = Wallet.createRandom().address;
  const xp = () => ({ chain, app_id: app, receiver: user, action_id: 'tamper', amount: 1 });

  it.each([
    ['to', 'another to', (a: Record<string, unknown>) => void (tx(a).to = other)],
    [
      'function',
      'another function',
      (a: Record<string, unknown>) =>
        void (tx(a).data = appInterface.encodeFunctionData('addOperator', [other])),
    ],
    [
      'args.receiver',
      'another receiver',
      (a: Record<string, unknown>) => {
        const parsed = appInterface.parseTransaction({ data: tx(a).data })!;
        tx(a).data = appInterface.encodeFunctionData('rewardXP', [other, parsed.args[1], parsed.args[2]]);
      },
    ],
    [
      'args.amount',
      'another amount',
      (a: Record<string, unknown>) => {
        const parsed = appInterface.parseTransaction({ data: tx(a).data })!;
        tx(a).data = appInterface.encodeFunctionData('rewardXP', [
          parsed.args[0],
          10n ** 24n,
          parsed.args[2],
        ]);
      },
    ],
    ['data', 'bytes appended', (a: Record<string, unknown>) => void (tx(a).data += '00'.repeat(32))],
    ['value', 'a value', (a: Record<string, unknown>) => void (tx(a).value = '1000000000000000000')],
    ['chainId', 'another chain id', (a: Record<string, unknown>) => void (tx(a).chainId = 1)],
    ['type', 'a legacy type', (a: Record<string, unknown>) => void (tx(a).type = 0)],
    ['gasLimit', 'gas over the ceiling', (a: Record<string, unknown>) => void (tx(a).gasLimit = '30000000')],
    [
      'maxFeePerGas',
      'a fee over the ceiling',
      (a: Record<string, unknown>) => void (tx(a).maxFeePerGas = String(10n ** 15n)),
    ],
    [
      'maxPriorityFeePerGas',
      'a priority fee over the ceiling',
      (a: Record<string, unknown>) => void (tx(a).maxPriorityFeePerGas = String(10n ** 12n)),
    ],
    ['nonce', 'a nonce far ahead', (a: Record<string, unknown>) => void (tx(a).nonce += 100)],
    ['nonce', 'a nonce already used', (a: Record<string, unknown>) => void (tx(a).nonce = 0)],
  ])(
    'refuses %s (%s) in reward/XP, before any signature, and nothing reaches execute',
    async (field, _what, tamper) => {
      const [executes, signed] = [proxy.executes, signatures];
      proxy.tamper = tamper;
      try {
        const refused = await sendVerified(client, counted, '/v1/reward/XP', xp(), { wait: true }).catch(
          (e: unknown) => e,
        );
        expect(refused).toBeInstanceOf(TransactionMismatchError);
        expect((refused as TransactionMismatchError).field).toBe(field);
        expect((refused as TransactionMismatchError).message).toContain(`${field} is `);
      } finally {
        proxy.tamper = undefined;
      }
      expect([proxy.executes, signatures]).toEqual([executes, signed]);
    },
  );

  it('takes the chain id from the wallet’s node: the chain list and the build altered alike are refused', async () => {
    const [executes, signed] = [proxy.executes, signatures];
    proxy.tamperChains = (answer) => {
      for (const listed of answer.chains as { chainId: number }[]) listed.chainId = 1;
    };
    proxy.tamper = (answer) => void (tx(answer).chainId = 1);
    try {
      const refused = await sendVerified(client, counted, '/v1/reward/XP', xp()).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TransactionMismatchError);
      expect(refused).toMatchObject({ field: 'chainId', expected: '31337', actual: '1' });
    } finally {
      proxy.tamper = proxy.tamperChains = undefined;
    }
    expect([proxy.executes, signatures]).toEqual([executes, signed]);
  });

  it('names the batch item whose receiver was changed', async () => {
    proxy.tamper = (answer) => {
      const outer = appInterface.parseTransaction({ data: tx(answer).data })!;
      const items = [...(outer.args[0] as string[])];
      const inner = appInterface.parseTransaction({ data: items[1]! })!;
      items[1] = appInterface.encodeFunctionData('rewardXP', [other, inner.args[1], inner.args[2]]);
      tx(answer).data = appInterface.encodeFunctionData('batch', [items]);
    };
    try {
      const refused = await sendVerified(client, counted, '/v1/reward/batch', {
        chain,
        app_id: app,
        items: [
          { kind: 'credit', receiver: user, action_id: 'i0', amount: 1, token_address: gems, mint: true },
          { kind: 'xp', receiver: user, action_id: 'i1', amount: 1 },
        ],
      }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TransactionMismatchError);
      expect(refused).toMatchObject({
        field: 'items.1.receiver',
        expected: user.toLowerCase(),
        actual: other.toLowerCase(),
      });
    } finally {
      proxy.tamper = undefined;
    }
    expect(signatures).toBe(0);
  });

  it('refuses a permit whose hashToSign or token was changed', async () => {
    const body = { chain, token_id: gems, holder_address: owner.address, receiver_address: other, amount: 1 };
    for (const [field, tamper] of [
      ['hashToSign', (permit: Record<string, unknown>) => void (permit.hashToSign = `0x${'11'.repeat(32)}`)],
      [
        'domain.verifyingContract',
        (permit: Record<string, unknown>) =>
          void ((permit.domain as Record<string, unknown>).verifyingContract = other),
      ],
    ] as const) {
      proxy.tamper = (answer) => tamper(answer.permitData as Record<string, unknown>);
      try {
        const refused = await verifiedPermitData(client, body).catch((e: unknown) => e);
        expect(refused).toMatchObject({ name: 'TransactionMismatchError', field });
      } finally {
        proxy.tamper = undefined;
      }
    }
    // Untouched, the same request passes through the proxy.
    await expect(verifiedPermitData(client, body)).resolves.toMatchObject({
      hashToSign: expect.stringMatching(/^0x/),
    });
  });

  it('signs and sends when nothing was changed (the proxy itself changes nothing)', async () => {
    // The refused builds above kept their nonce reservations: the first build signed here is behind
    // them (so further ahead than the default bound allows), execute answers 409 nonce_gap (freeing
    // them), and the flow rebuilds once and sends.
    const executes = proxy.executes;
    succeeded(
      await sendVerified(client, counted, '/v1/reward/XP', xp(), {
        wait: true,
        limits: { maxNonceAhead: 64 },
      }),
    );
    expect([signatures, proxy.executes - executes]).toEqual([2, 2]);
  });
});
