import { isError, type JsonRpcProvider } from 'ethers';
import { checksumAddress } from '../addresses';
import type { Config } from '../config';
import type { Pool } from 'pg';
import type { ContractCall, LaurelContractName, WriteFunctionName } from './abis';
import { encodeFunctionCall } from './call-data';
import { revertDataOf } from './contracts';
import { buildCallHash, NonceReserver } from './nonces';
import type { Chain, ChainRegistry } from './registry';
import { transactionRevertedError } from './reverts';

/** The unsigned EIP-1559 transaction every build answers, as the interface shows it. */
export interface UnsignedTransactionJson {
  to: string;
  data: string;
  /** Decimal integer strings. */
  maxPriorityFeePerGas: string;
  maxFeePerGas: string;
  gasLimit: string;
  nonce: number;
  chainId: number;
  type: 2;
}

/** A build: one Laurel contract function called by `from` on `chain`, checked against the ABI. */
export type BuildRequest<C extends LaurelContractName, F extends WriteFunctionName<C>> = ContractCall<
  C,
  F
> & {
  chain: Chain;
  /** The sender: the caller's wallet (ctx.account.address). */
  from: string;
};

/** Gas limit = estimate + 20 %. */
const GAS_HEADROOM_PERCENT = 120n;
/** The latest block (and with it the fee data) is looked at no more than once per interval per chain. */
const BLOCK_CHECK_INTERVAL_MS = 1_000;
/** ethers' default tip when the node has no eth_maxPriorityFeePerGas. */
const DEFAULT_PRIORITY_FEE = 1_000_000_000n;

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

interface FeeCacheEntry {
  blockNumber: number;
  fees: Fees;
  checkedAt: number;
}

function isRevert(error: unknown): boolean {
  return isError(error, 'CALL_EXCEPTION') || revertDataOf(error) !== null;
}

export interface TransactionBuilderDeps {
  pool: Pool;
  chains: ChainRegistry;
  config: Config;
}

/**
 * Builds the unsigned transactions Laurel hands out. One build:
 *   - simulates the call from the sender (eth_estimateGas): a revert is a TransactionRevertedError
 *     with the decoded custom error, and no nonce is used;
 *   - gasLimit = estimate + 20 %;
 *   - maxFeePerGas = 2 × latest base fee + tip, maxPriorityFeePerGas = the node's tip; cached per
 *     chain per block, the latest block looked at no more than once a second per chain;
 *   - nonce: the node's pending nonce, then a reservation in PostgreSQL (src/chain/nonces.ts),
 *     made together with the sender's other builds waiting at that moment (NonceReserver);
 *   - call data: src/chain/call-data.ts (the function resolved once, static arguments word by word).
 * The RPC calls of one build are made in the same tick (one JSON-RPC batch, shared with other
 * builds' calls), through ChainRegistry.call (deadline; a dead node is a 503).
 */
export class TransactionBuilder {
  private readonly feeCache = new Map<number, FeeCacheEntry>();
  private readonly feeRefreshes = new Map<number, Promise<Fees>>();
  private readonly nonces: NonceReserver;

  constructor(private readonly deps: TransactionBuilderDeps) {
    this.nonces = new NonceReserver(deps.pool, deps.config.transactions.nonceReservationTtlSeconds);
  }

  async build<C extends LaurelContractName, F extends WriteFunctionName<C>>(
    request: BuildRequest<C, F>,
  ): Promise<UnsignedTransactionJson> {
    const { chain, functionName } = request;
    const from = checksumAddress(request.from);
    const to = checksumAddress(request.address);
    const data = encodeFunctionCall(request.contract, functionName, request.args as readonly unknown[]);
    // provider.send, not estimateGas()/getTransactionCount(): ethers caches identical requests for
    // 250 ms, which would hand out a stale pending nonce or a stale simulation.
    const [estimate, fees, pendingNonce] = await this.deps.chains.call(chain, (provider) =>
      Promise.all([
        provider
          .send('eth_estimateGas', [{ from, to, data }])
          .then((value: string) => BigInt(value))
          .catch((error: unknown) => {
            if (isRevert(error)) throw transactionRevertedError(error, { chain, to, functionName });
            throw error;
          }),
        this.fees(chain, provider),
        provider
          .send('eth_getTransactionCount', [from, 'pending'])
          .then((value: string) => Number(BigInt(value))),
      ]),
    );
    const nonce = await this.nonces.reserve(chain.chainId, from, pendingNonce, buildCallHash(to, data));
    const gasLimit = ((estimate * GAS_HEADROOM_PERCENT + 99n) / 100n).toString();
    return {
      to,
      data,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      maxFeePerGas: fees.maxFeePerGas.toString(),
      gasLimit,
      nonce,
      chainId: chain.chainId,
      type: 2,
    };
  }

  /** Fee data of the chain's latest block, cached per block (see the class comment). */
  private fees(chain: Chain, provider: JsonRpcProvider): Promise<Fees> {
    const cached = this.feeCache.get(chain.chainId);
    if (cached && Date.now() - cached.checkedAt < BLOCK_CHECK_INTERVAL_MS)
      return Promise.resolve(cached.fees);
    const running = this.feeRefreshes.get(chain.chainId);
    if (running) return running;
    const refresh = this.refreshFees(chain, provider).finally(() => this.feeRefreshes.delete(chain.chainId));
    this.feeRefreshes.set(chain.chainId, refresh);
    return refresh;
  }

  private async refreshFees(chain: Chain, provider: JsonRpcProvider): Promise<Fees> {
    const checkedAt = Date.now();
    const optional = (method: string) =>
      provider.send(method, []).then(
        (value: string) => BigInt(value),
        () => null,
      );
    const [block, tip, gasPrice] = await Promise.all([
      provider.getBlock('latest'),
      optional('eth_maxPriorityFeePerGas'),
      optional('eth_gasPrice'),
    ]);
    if (!block) throw new Error(`chain ${chain.name}: no latest block`);
    const cached = this.feeCache.get(chain.chainId);
    if (cached && cached.blockNumber === block.number) {
      cached.checkedAt = checkedAt;
      return cached.fees;
    }
    let fees: Fees;
    if (block.baseFeePerGas != null) {
      const maxPriorityFeePerGas = tip ?? DEFAULT_PRIORITY_FEE;
      fees = { maxPriorityFeePerGas, maxFeePerGas: block.baseFeePerGas * 2n + maxPriorityFeePerGas };
    } else {
      // A chain without EIP-1559 base fees: both caps at the gas price.
      const price = gasPrice ?? tip ?? DEFAULT_PRIORITY_FEE;
      fees = { maxPriorityFeePerGas: price, maxFeePerGas: price };
    }
    this.feeCache.set(chain.chainId, { blockNumber: block.number, fees, checkedAt });
    return fees;
  }
}
