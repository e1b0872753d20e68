/**
 * The whole write flow in one call: build through the typed API, verify the unsigned transaction
 * against the request (./verify.ts), sign it locally, and execute it (or execute and wait). A 409
 * `nonce_gap` from execute means Laurel freed the unsent reservations before this one: the flow
 * builds, verifies and signs again, a bounded number of times.
 */
import { LaurelError } from './errors.js';
import { executeSigned, type Executed, type ExecutedAndWaited } from './execute.js';
import type { Laurel } from './laurel.js';
import type { EthersSignerLike, ViemAccountLike } from './signers.js';
import {
  verifyPermitData,
  verifyTransaction,
  type BuildOperation,
  type BuildRequest,
  type ChainReader,
  type PermitData,
  type PostBody,
  type UnsignedTransaction,
  type VerifyContext,
} from './verify.js';

/** A wallet that signs transactions: an ethers Signer, or a viem local account. */
export type TransactionWallet = EthersSignerLike | ViemAccountLike;

export interface SendOptions extends Pick<VerifyContext, 'tokenDecimals' | 'limits'> {
  /** Wait for the receipt (execute-and-wait) instead of answering once sent. */
  wait?: boolean;
  /**
   * Reads the signer's pending nonce, decimals and badges from the chain (default: the ethers
   * Signer's own provider, when it has one). See VerifyContext.provider.
   */
  provider?: ChainReader;
  /** The chain id to require (default: the provider's node's, else GET /v1/chains' for the body's `chain`). */
  chainId?: number;
  /** The AppFactory app/new must call (default: GET /v1/chains' for the body's `chain`). */
  factoryAddress?: string;
  /** Rebuilds after a 409 `nonce_gap` (default 2). */
  maxRebuilds?: number;
}

/**
 * Builds `operation` with `body`, verifies the transaction, signs it with `wallet` and executes it.
 * Throws TransactionMismatchError (nothing signed, nothing sent) when the build is not what was
 * asked, LaurelError when Laurel refuses a step.
 *
 *   await sendVerified(laurel, wallet, '/v1/reward/XP', { chain, app_id, receiver, amount: 10, action_id }, { wait: true });
 */
export function sendVerified<P extends BuildOperation>(
  laurel: Laurel,
  wallet: TransactionWallet,
  operation: P,
  body: PostBody<P>,
  options: SendOptions & { wait: true },
): Promise<ExecutedAndWaited>;
export function sendVerified<P extends BuildOperation>(
  laurel: Laurel,
  wallet: TransactionWallet,
  operation: P,
  body: PostBody<P>,
  options?: SendOptions & { wait?: false },
): Promise<Executed>;
export async function sendVerified<P extends BuildOperation>(
  laurel: Laurel,
  wallet: TransactionWallet,
  operation: P,
  body: PostBody<P>,
  options: SendOptions = {},
): Promise<Executed | ExecutedAndWaited> {
  const request = { operation, body } as BuildRequest;
  const context = await verifyContext(laurel, wallet, request.body.chain, options);
  const maxRebuilds = options.maxRebuilds ?? 2;
  for (let rebuilds = 0; ; rebuilds++) {
    const { unsignedTransaction } = await laurel.call(build(laurel, request));
    await verifyTransaction(request, unsignedTransaction, context);
    const signedTransaction = await signTransaction(wallet, unsignedTransaction);
    try {
      const input = { chain: request.body.chain, signedTransaction };
      return options.wait
        ? await executeSigned(laurel, input, { wait: true })
        : await executeSigned(laurel, input);
    } catch (error) {
      if (!(error instanceof LaurelError && error.code === 'nonce_gap' && rebuilds < maxRebuilds))
        throw error;
    }
  }
}

/**
 * POST /credit/permit-data, verified (verifyPermitData): the permit data the holder may sign.
 */
export async function verifiedPermitData(
  laurel: Laurel,
  body: PostBody<'/v1/credit/permit-data'>,
  options: Pick<SendOptions, 'provider' | 'chainId' | 'tokenDecimals'> = {},
): Promise<PermitData> {
  const [{ permitData }, chainId] = await Promise.all([
    laurel.call(laurel.api.POST('/v1/credit/permit-data', { body })),
    options.chainId ??
      nodeChainId(options.provider).then(
        async (known) => known ?? (await chainOf(laurel, body.chain)).chainId,
      ),
  ]);
  await verifyPermitData(body, permitData, {
    chainId,
    signer: body.holder_address,
    laurel,
    provider: options.provider,
    tokenDecimals: options.tokenDecimals,
  });
  return permitData;
}

type BuildAnswer = {
  data?: { unsignedTransaction: UnsignedTransaction };
  error?: unknown;
  response: Response;
};

/** The typed build call; every builder answers the same `{status, unsignedTransaction}`. */
const build = (laurel: Laurel, request: BuildRequest): Promise<BuildAnswer> =>
  (laurel.api.POST as (path: BuildOperation, init: { body: unknown }) => Promise<BuildAnswer>)(
    request.operation,
    {
      body: request.body,
    },
  );

async function verifyContext(
  laurel: Laurel,
  wallet: TransactionWallet,
  chainName: string,
  options: SendOptions,
): Promise<VerifyContext> {
  const provider = options.provider ?? providerOf(wallet);
  const chainId = options.chainId ?? (await nodeChainId(provider));
  const chain =
    chainId !== undefined && options.factoryAddress !== undefined
      ? undefined
      : await chainOf(laurel, chainName);
  return {
    chainId: chainId ?? chain!.chainId,
    factoryAddress: options.factoryAddress ?? chain!.factoryAddress,
    signer: isViemAccount(wallet) ? wallet.address : await wallet.getAddress(),
    provider,
    laurel,
    tokenDecimals: options.tokenDecimals,
    limits: options.limits,
  };
}

/**
 * The chain id of the caller's own node, when its provider says: trusted over Laurel's list, so
 * that an answer altered on the way (the list and the build alike) cannot choose the chain.
 */
async function nodeChainId(provider: ChainReader | undefined): Promise<number | undefined> {
  return provider?.getNetwork ? Number((await provider.getNetwork()).chainId) : undefined;
}

/** The chain as Laurel lists it (GET /v1/chains). */
async function chainOf(laurel: Laurel, name: string): Promise<{ chainId: number; factoryAddress: string }> {
  const { chains } = await laurel.call(laurel.api.GET('/v1/chains'));
  const chain = chains.find((candidate) => candidate.name === name);
  if (!chain) {
    throw new Error(
      `Laurel at ${laurel.url} serves no chain "${name}" (it serves: ${chains.map((c) => c.name).join(', ') || 'none'})`,
    );
  }
  return chain;
}

const isViemAccount = (wallet: TransactionWallet): wallet is ViemAccountLike =>
  typeof (wallet as ViemAccountLike).address === 'string' && !('getAddress' in wallet);

/** An ethers Signer's provider, when it has one that reads the chain. */
function providerOf(wallet: TransactionWallet): ChainReader | undefined {
  const provider = (wallet as { provider?: Partial<ChainReader> | null }).provider;
  return provider && typeof provider.call === 'function' && typeof provider.getTransactionCount === 'function'
    ? (provider as ChainReader)
    : undefined;
}

/** Signs exactly the verified fields (anything else the answer carried is left out). */
function signTransaction(wallet: TransactionWallet, tx: UnsignedTransaction): Promise<string> {
  const fields = {
    to: tx.to,
    data: tx.data,
    nonce: tx.nonce,
    chainId: tx.chainId,
    maxFeePerGas: BigInt(tx.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
    value: 0n,
  };
  if (!isViemAccount(wallet))
    return wallet.signTransaction({ ...fields, type: 2, gasLimit: BigInt(tx.gasLimit) });
  if (!wallet.signTransaction) {
    throw new Error(
      'this viem account cannot sign transactions locally: use a local account (privateKeyToAccount, mnemonicToAccount)',
    );
  }
  return wallet.signTransaction({ ...fields, type: 'eip1559', gas: BigInt(tx.gasLimit) });
}
