/**
 * Verify before signing: an unsigned transaction Laurel built is decoded with Laurel's own ABIs and
 * checked against the request that asked for it (the function and every argument, `to`, the chain,
 * value, type, gas and fees, the nonce) before any wallet signs it. Laurel never holds a key, so a
 * transaction the caller did not ask for is the one thing a compromised or mistaken server (or
 * anything between it and the caller) could get signed. The rules, defaults and trust model are in
 * README.md ("Verify before signing").
 */
import { getAddress, Interface, toUtf8Bytes, TypedDataEncoder, zeroPadBytes, type Result } from 'ethers';
import { laurelAbis } from './abis.js';
import { toBaseUnits } from './amounts.js';
import type { components, paths } from './generated/openapi.js';
import type { Laurel } from './laurel.js';

/** The REST operations that build a transaction to sign. */
export const BUILD_OPERATIONS = [
  '/v1/app/new',
  '/v1/app/operator/add',
  '/v1/app/operator/remove',
  '/v1/badge/new',
  '/v1/credit/new',
  '/v1/credit/approve',
  '/v1/credit/transfer',
  '/v1/reward/badge',
  '/v1/reward/credit',
  '/v1/reward/point',
  '/v1/reward/XP',
  '/v1/reward/batch',
] as const;
export type BuildOperation = (typeof BUILD_OPERATIONS)[number];

/** The JSON body of a POST operation, from openapi.json. */
export type PostBody<P extends keyof paths> = paths[P] extends {
  post: { requestBody: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** The request a build answers: its operation and body, as sent. */
export type BuildRequest = { [P in BuildOperation]: { operation: P; body: PostBody<P> } }[BuildOperation];

/** An unsigned transaction as a build answers it (a `value`, which Laurel never sets, is refused). */
export type UnsignedTransaction = components['schemas']['UnsignedTransaction'] & {
  value?: string | number | null;
};
export type PermitData = components['schemas']['PermitData'];

/** What the client reads from the chain when the caller gives a provider (an ethers Provider fits). */
export interface ChainReader {
  call(transaction: { to: string; data: string }): Promise<string>;
  getTransactionCount(address: string, blockTag: 'pending'): Promise<number>;
  /** The node's chain id: when there, the chain id a transaction must carry comes from it. */
  getNetwork?(): Promise<{ chainId: bigint | number }>;
}

/** Ceilings on what the signer may pay and how far ahead its nonce may be. */
export interface VerifyLimits {
  /** Highest gas limit (default 10 000 000: a batch of ~200 rewards; raise it for more). */
  maxGasLimit?: bigint;
  /** Highest max fee per gas, wei (default 500 gwei). */
  maxFeePerGas?: bigint;
  /** Highest priority fee per gas, wei (default 50 gwei). */
  maxPriorityFeePerGas?: bigint;
  /**
   * How far above the signer's pending nonce the transaction's may be (default 16: Laurel reserves
   * one nonce a build, so builds not yet sent put the next one ahead).
   */
  maxNonceAhead?: number;
}

export const DEFAULT_VERIFY_LIMITS: Required<VerifyLimits> = {
  maxGasLimit: 10_000_000n,
  maxFeePerGas: 500n * 10n ** 9n,
  maxPriorityFeePerGas: 50n * 10n ** 9n,
  maxNonceAhead: 16,
};

export interface VerifyContext {
  /**
   * The chain id the transaction must carry: the caller's own, else the provider's node's, else
   * GET /v1/chains' for `chain`.
   */
  chainId: number;
  /** The wallet that will sign. */
  signer: string;
  /** The AppFactory app/new must call (pinned by the caller, or GET /v1/chains' `factoryAddress`). */
  factoryAddress?: string;
  /**
   * Reads the signer's pending nonce, token decimals and an app's badges from the chain. Without it
   * the nonce is only checked to be a non-negative integer, and decimals and badge names are asked
   * of Laurel (the `laurel` below).
   */
  provider?: ChainReader;
  /** Where decimals and badge names are asked when no provider is given. */
  laurel?: Laurel;
  /** Decimals the caller already knows, by token address: used before any look-up. */
  tokenDecimals?: Record<string, number>;
  limits?: VerifyLimits;
}

/** A transaction (or permit) that is not what was asked: `field` names where, with both values. */
export class TransactionMismatchError extends Error {
  override readonly name = 'TransactionMismatchError';
  constructor(
    /** `to`, `chainId`, `value`, `gasLimit`, `nonce`, `function`, `args.amount`, `items.3.receiver`, `hashToSign`… */
    readonly field: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `refused to sign: the transaction Laurel built does not match the request: ${field} is ${actual}, expected ${expected}. ` +
        'Nothing was signed; do not sign it by hand either: check the Laurel URL and what is between you and it',
    );
  }
}

const interfaces = {
  AppFactory: new Interface(laurelAbis.AppFactory),
  App: new Interface(laurelAbis.App),
  CreditToken: new Interface(laurelAbis.CreditToken),
  Badge: new Interface(laurelAbis.Badge),
};
type Contract = keyof typeof interfaces;

/** One argument the call must carry, named as the request names it. */
type Arg = [label: string, value: unknown];
/** One call the data must encode. */
interface Call {
  functionName: string;
  args: Arg[];
}
/** What a build must produce: a call (or App.batch of calls) to `to`. */
interface Expected {
  contract: Contract;
  to: string;
  call: Call | { batch: Call[] };
}

/** A bytes32 action id, as Laurel encodes it (UTF-8, zero-padded on the right). */
const actionId = (id: string): string => zeroPadBytes(toUtf8Bytes(id), 32);

/**
 * Checks `unsigned` against `request`; resolves when every rule holds, throws
 * TransactionMismatchError naming the first field that does not.
 */
export async function verifyTransaction(
  request: BuildRequest,
  unsigned: UnsignedTransaction,
  context: VerifyContext,
): Promise<void> {
  const limits = { ...DEFAULT_VERIFY_LIMITS, ...context.limits };
  const facts = new ChainFacts(context, request.body.chain);
  const [expected, pendingNonce] = await Promise.all([
    expectedCall(request, facts, context),
    context.provider?.getTransactionCount(context.signer, 'pending'),
  ]);

  same('to', expected.to, unsigned.to, 'address');
  same('chainId', context.chainId, unsigned.chainId, 'uint');
  same('type', 2, unsigned.type, 'uint');
  if (unsigned.value !== undefined && unsigned.value !== null) same('value', 0, unsigned.value, 'uint');

  const gasLimit = uint('gasLimit', unsigned.gasLimit);
  atMost('gasLimit', gasLimit, limits.maxGasLimit);
  if (unsigned.gas !== undefined && unsigned.gas !== null) same('gas', gasLimit, unsigned.gas, 'uint');
  const maxFee = uint('maxFeePerGas', unsigned.maxFeePerGas);
  atMost('maxFeePerGas', maxFee, limits.maxFeePerGas);
  const priorityFee = uint('maxPriorityFeePerGas', unsigned.maxPriorityFeePerGas);
  atMost(
    'maxPriorityFeePerGas',
    priorityFee,
    limits.maxPriorityFeePerGas < maxFee ? limits.maxPriorityFeePerGas : maxFee,
  );

  const nonce = uint('nonce', unsigned.nonce);
  if (pendingNonce !== undefined) {
    const pending = BigInt(pendingNonce);
    if (nonce < pending) {
      // A nonce already taken would replace (or duplicate) a transaction the signer already sent.
      throw new TransactionMismatchError(
        'nonce',
        `at least ${pending} (the signer's pending nonce)`,
        String(nonce),
      );
    }
    atMost(
      'nonce',
      nonce,
      pending + BigInt(limits.maxNonceAhead),
      `the signer's pending nonce ${pending} + ${limits.maxNonceAhead}`,
    );
  }

  verifyData(expected, unsigned.data);
}

/**
 * Checks the permit data Laurel answered (POST /credit/permit-data) against the request: the domain
 * is the token's on the expected chain, the separator is the domain's, and `hashToSign` is the
 * EIP-712 digest of exactly Permit(holder, receiver, amount, nonce, deadline), recomputed here. With a
 * provider, the nonce is the holder's current permit nonce on the token.
 */
export async function verifyPermitData(
  body: PostBody<'/v1/credit/permit-data'>,
  permit: PermitData,
  context: Omit<VerifyContext, 'factoryAddress' | 'limits'>,
): Promise<void> {
  const facts = new ChainFacts(context, body.chain);
  const { domain } = permit;
  same('domain.chainId', context.chainId, domain.chainId, 'uint');
  same('domain.verifyingContract', body.token_id, domain.verifyingContract, 'address');
  same('domainSeparator', TypedDataEncoder.hashDomain(domain), permit.domainSeparator, 'bytes');
  const nonce = uint('nonce', permit.nonce);
  if (context.provider)
    same('nonce', await facts.permitNonce(body.token_id, body.holder_address), nonce, 'uint');
  const value = toBaseUnits(body.amount, await facts.decimals(body.token_id));
  const digest = TypedDataEncoder.hash(domain, PERMIT_TYPES, {
    owner: body.holder_address,
    spender: body.receiver_address,
    value,
    nonce,
    deadline: permit.deadline,
  });
  same('hashToSign', digest, permit.hashToSign, 'bytes');
}

/** EIP-2612's Permit struct, as Laurel's CreditToken (OpenZeppelin ERC20Permit) hashes it. */
export const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};

// ------------------------------------------------------------------ what each builder produces

type BatchItem = PostBody<'/v1/reward/batch'>['items'][number];
type BadgeRef = { badge_id?: string; badge_name?: string };

/** The call each builder makes, with its arguments computed as Laurel computes them (src/modules/*). */
async function expectedCall(
  request: BuildRequest,
  facts: ChainFacts,
  context: VerifyContext,
): Promise<Expected> {
  const app = (call: Expected['call']): Expected => ({
    contract: 'App',
    to: (request.body as { app_id: string }).app_id,
    call,
  });
  switch (request.operation) {
    case '/v1/app/new': {
      if (!context.factoryAddress)
        throw new Error('verifying app/new needs the factory address (GET /v1/chains, or pin it)');
      return {
        contract: 'AppFactory',
        to: context.factoryAddress,
        call: { functionName: 'createApp', args: [['name', request.body.name]] },
      };
    }
    case '/v1/app/operator/add':
    case '/v1/app/operator/remove':
      return app({
        functionName: request.operation === '/v1/app/operator/add' ? 'addOperator' : 'removeOperator',
        args: [['operator_address', request.body.operator_address]],
      });
    case '/v1/badge/new':
      return app({
        functionName: 'createBadge',
        args: [
          ['badge_name', request.body.badge_name],
          ['base_uri', request.body.base_uri ?? ''],
        ],
      });
    case '/v1/credit/new': {
      const { body } = request;
      return app({
        functionName: 'createCreditToken',
        args: [
          ['token_name', body.token_name],
          ['token_symbol', body.token_symbol],
          ['token_decimals', body.token_decimals],
          ['token_supply', toBaseUnits(body.token_supply, body.token_decimals)],
          ['token_is_point', body.token_is_point],
        ],
      });
    }
    case '/v1/credit/approve': {
      const { body } = request;
      return {
        contract: 'CreditToken',
        to: body.token_id,
        call: {
          functionName: 'approve',
          args: [
            ['spender_address', body.spender_address],
            ['amount', toBaseUnits(body.amount, await facts.decimals(body.token_id))],
          ],
        },
      };
    }
    case '/v1/credit/transfer': {
      const { body } = request;
      const { v, r, s } = body.signedPermit;
      return {
        contract: 'CreditToken',
        to: body.token_id,
        call: {
          functionName: 'transferWithPermit',
          args: [
            ['holder_address', body.holder_address],
            ['receiver_address', body.receiver_address],
            ['amount', toBaseUnits(body.amount, await facts.decimals(body.token_id))],
            ['deadline', body.deadline],
            // Laurel reads a bare recovery bit (0/1) as 27/28.
            ['signedPermit.v', v < 27 ? v + 27 : v],
            ['signedPermit.r', r],
            ['signedPermit.s', s],
          ],
        },
      };
    }
    case '/v1/reward/XP':
      return app(await rewardCall({ kind: 'xp', ...request.body }, request.body.app_id, facts));
    case '/v1/reward/badge':
      return app(await rewardCall({ kind: 'badge', ...request.body }, request.body.app_id, facts));
    case '/v1/reward/credit':
      return app(
        await rewardCall(
          { kind: 'credit', ...request.body, mint: request.body.mint ?? false },
          request.body.app_id,
          facts,
        ),
      );
    case '/v1/reward/point':
      return app(await rewardCall({ kind: 'point', ...request.body }, request.body.app_id, facts));
    case '/v1/reward/batch': {
      const { body } = request;
      const batch = await Promise.all(body.items.map((item) => rewardCall(item, body.app_id, facts)));
      return app({ batch });
    }
  }
}

/** One reward call of an app (a single reward, or an item of a batch): src/modules/rewards. */
async function rewardCall(item: BatchItem, appId: string, facts: ChainFacts): Promise<Call> {
  const common = (amount: bigint): Arg[] => [
    ['receiver', item.receiver],
    ['amount', amount],
    ['action_id', actionId(item.action_id)],
  ];
  switch (item.kind) {
    case 'xp':
      return { functionName: 'rewardXP', args: common(toBaseUnits(item.amount, XP_DECIMALS)) };
    case 'badge': {
      const badge = item as BatchItem & BadgeRef;
      return {
        functionName: 'rewardBadge',
        args: [
          ['badge', badge.badge_id ?? (await facts.badgeNamed(appId, badge.badge_name ?? ''))],
          ['receiver', item.receiver],
          ['amount', BigInt(item.amount)],
          ['base_uri', item.base_uri ?? ''],
          ['action_id', actionId(item.action_id)],
        ],
      };
    }
    case 'credit':
    case 'point': {
      const amount = toBaseUnits(item.amount, await facts.decimals(item.token_address));
      const [receiver, ...rest] = common(amount);
      return {
        functionName: item.kind === 'point' ? 'rewardPoint' : item.mint ? 'rewardCredit' : 'transferERC20',
        args: [['token_address', item.token_address], receiver!, ...rest],
      };
    }
  }
}

/** XP has 18 decimals (the server's XP_DECIMALS). */
const XP_DECIMALS = 18;

// ------------------------------------------------------------------ decoding and comparing

/** The data must decode, with the expected contract's ABI, to the expected call and nothing else. */
function verifyData(expected: Expected, data: string): void {
  const iface = interfaces[expected.contract];
  if ('batch' in expected.call) {
    const outer = decodeCall(iface, 'batch', [], data, '');
    const inner = outer[0] as string[];
    if (inner.length !== expected.call.batch.length) {
      throw new TransactionMismatchError(
        'items',
        `${expected.call.batch.length} items`,
        `${inner.length} items`,
      );
    }
    expected.call.batch.forEach((call, index) =>
      decodeCall(iface, call.functionName, call.args, inner[index]!, `items.${index}.`),
    );
    return;
  }
  decodeCall(iface, expected.call.functionName, expected.call.args, data, 'args.');
}

function decodeCall(
  iface: Interface,
  functionName: string,
  args: Arg[],
  data: string,
  prefix: string,
): Result {
  // `function` and `data` of the call itself; `items.N.function` and `items.N.data` of a batch item.
  const at = prefix === 'args.' ? '' : prefix;
  const functionField = `${at}function`;
  let parsed: ReturnType<Interface['parseTransaction']>;
  try {
    parsed = iface.parseTransaction({ data });
  } catch {
    parsed = null;
  }
  if (!parsed)
    throw new TransactionMismatchError(
      functionField,
      functionName,
      `unknown call ${String(data).slice(0, 10)}`,
    );
  if (parsed.name !== functionName)
    throw new TransactionMismatchError(functionField, functionName, parsed.name);
  parsed.fragment.inputs.forEach((input, index) => {
    // App.batch's one argument (its items) is checked item by item by verifyData.
    if (index >= args.length) return;
    const [label, value] = args[index]!;
    same(`${prefix}${label}`, value, parsed.args[index], kindOf(input.type));
  });
  // Every argument matched: the data must also be exactly their encoding (no bytes appended).
  if (iface.encodeFunctionData(parsed.fragment, parsed.args).toLowerCase() !== data.toLowerCase()) {
    throw new TransactionMismatchError(
      `${at}data`,
      'the canonical encoding of the call',
      'extra or non-canonical bytes',
    );
  }
  return parsed.args;
}

type Kind = 'address' | 'uint' | 'bytes' | 'exact';
const kindOf = (type: string): Kind =>
  type === 'address'
    ? 'address'
    : /^u?int\d*$/.test(type)
      ? 'uint'
      : /^bytes\d*$/.test(type)
        ? 'bytes'
        : 'exact';

/** Addresses and hex case-insensitively, integers by value, the rest exactly. */
function same(field: string, expected: unknown, actual: unknown, kind: Kind): void {
  const normal = (value: unknown): string => {
    if (kind === 'address' || kind === 'bytes')
      return String(value)
        .toLowerCase()
        .replace(/^(?!0x)/, '0x');
    if (kind === 'uint') {
      try {
        return BigInt(value as string).toString();
      } catch {
        return `not an integer: ${JSON.stringify(value)}`;
      }
    }
    return JSON.stringify(value);
  };
  const [want, got] = [normal(expected), normal(actual)];
  if (want !== got) throw new TransactionMismatchError(field, want, got);
}

/** A non-negative integer field (decimal text or number). */
function uint(field: string, value: unknown): bigint {
  if (
    (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
    (typeof value === 'string' && /^\d+$/.test(value))
  ) {
    return BigInt(value);
  }
  throw new TransactionMismatchError(field, 'a non-negative integer', JSON.stringify(value));
}

function atMost(field: string, value: bigint, ceiling: bigint, ceilingName = `the ceiling ${ceiling}`): void {
  if (value > ceiling) throw new TransactionMismatchError(field, `at most ${ceilingName}`, String(value));
}

// ------------------------------------------------------------------ facts the checks need

/**
 * Token decimals, an app's badge of a name, a holder's permit nonce: from the caller's pins, else
 * the chain through the caller's provider (trusting only that node), else Laurel (which catches a
 * mistaken or altered build, but not a Laurel that lies consistently).
 */
class ChainFacts {
  constructor(
    private readonly context: Omit<VerifyContext, 'factoryAddress' | 'limits'>,
    private readonly chain: string,
  ) {}

  async decimals(token: string): Promise<number> {
    const pinned = Object.entries(this.context.tokenDecimals ?? {}).find(
      ([address]) => address.toLowerCase() === token.toLowerCase(),
    );
    if (pinned) return pinned[1];
    if (this.context.provider) return Number(await this.read('CreditToken', token, 'decimals', []));
    const { decimals } = await this.laurel().call(
      this.laurel().api.POST('/v1/credit/balance', {
        body: { chain: this.chain, token_id: token, user_id: this.context.signer },
      }),
    );
    return decimals;
  }

  /** The app's one badge named `name` (a name two badges share is refused by Laurel's build already). */
  async badgeNamed(app: string, name: string): Promise<string> {
    let badges: { id: string; name: string }[];
    if (this.context.provider) {
      const ids = (await this.read('App', app, 'badges', [])) as string[];
      badges = await Promise.all(
        ids.map(async (id) => ({ id, name: String(await this.read('Badge', id, 'name', [])) })),
      );
    } else {
      ({ badges } = await this.laurel().call(
        this.laurel().api.GET('/v1/badges', { params: { query: { chain: this.chain, app_id: app } } }),
      ));
    }
    const named = badges.filter((badge) => badge.name === name);
    if (named.length !== 1) {
      throw new Error(
        `cannot check the badge named "${name}": app ${app} has ${named.length} badges of that name${this.context.provider ? '' : ' in Laurel’s list (it may not have indexed a new badge yet: give a provider)'}`,
      );
    }
    return getAddress(named[0]!.id);
  }

  async permitNonce(token: string, holder: string): Promise<bigint> {
    return (await this.read('CreditToken', token, 'nonces', [holder])) as bigint;
  }

  private async read(
    contract: Contract,
    to: string,
    functionName: string,
    args: unknown[],
  ): Promise<unknown> {
    const iface = interfaces[contract];
    const answer = await this.context.provider!.call({
      // The interface takes addresses without 0x too, which a provider would resolve as ENS names.
      to: getAddress(to),
      data: iface.encodeFunctionData(functionName, args),
    });
    return iface.decodeFunctionResult(functionName, answer)[0];
  }

  private laurel(): Laurel {
    if (!this.context.laurel)
      throw new Error('verifying this transaction needs a provider or the Laurel to ask');
    return this.context.laurel;
  }
}
