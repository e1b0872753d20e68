import { checksumAddress } from '../../../addresses';
import type { LaurelContractName, WriteFunctionName } from '../../../chain/abis';
import { encodeFunctionCall } from '../../../chain/call-data';
import { feesFor, gasLimitFor, readLatestBlock, type Fees } from '../../../chain/fees';
import type { Chain, ChainRegistry } from '../../../chain/registry';
import { isRevert, TransactionRevertedError, transactionRevertedError } from '../../../chain/reverts';
import type { BuildRequest, UnsignedTransactionJson } from '../../../chain/unsigned-transactions';
import type { Config } from '../../../config';
import type { LaurelMetrics } from '../../../metrics';
import { SingleFlight } from '../../../single-flight';
import type { Pool } from 'pg';
import type { JsonRpcProvider } from 'ethers';
import { InsufficientFundsError } from '../transactions.failures';
import { buildCallHash, NonceReserver } from './nonce-reservations';

export type { BuildRequest, UnsignedTransactionJson };

/** The latest block (and with it the fee data) is looked at no more than once per interval per chain. */
const BLOCK_CHECK_INTERVAL_MS = 1_000;

/** What a build takes from the chain's latest block: its fees, and the gas a block holds. */
interface BlockTerms {
  fees: Fees;
  blockGasLimit: bigint;
}

interface BlockTermsCacheEntry {
  blockNumber: number;
  terms: BlockTerms;
  checkedAt: number;
}

export interface TransactionBuilderDeps {
  pool: Pool;
  chains: ChainRegistry;
  config: Config;
  /** Counts builds by outcome (null: METRICS=off). */
  metrics: LaurelMetrics | null;
}

/**
 * Builds the unsigned transactions Laurel hands out. One build:
 *   - simulates the call from the sender (eth_estimateGas): a revert is a TransactionRevertedError
 *     with the decoded custom error, and no nonce is used;
 *   - gasLimit = estimate + 20 %, within what the next block may hold (gasLimitFor);
 *   - fees: src/chain/fees.ts (tip from eth_feeHistory, 2 × next base fee + tip, the chain's cap);
 *     cached per chain per block with the block's gas limit, the latest block looked at no more
 *     than once a second per chain;
 *   - funds: the sender's balance (pending) must cover gasLimit × maxFeePerGas, else an
 *     InsufficientFundsError (422 `transaction_error` with `insufficient_funds`) and no nonce is used;
 *   - nonce: the node's pending nonce, then a reservation in PostgreSQL (./nonce-reservations.ts),
 *     made together with the sender's other builds waiting at that moment (NonceReserver);
 *   - call data: src/chain/call-data.ts (the function resolved once, static arguments word by word).
 * The RPC calls of one build are made in the same tick (one JSON-RPC batch, shared with other
 * builds' calls), through ChainRegistry.withProvider (deadline; a dead node is a 503).
 */
export class TransactionBuilder {
  private readonly blockTermsCache = new Map<number, BlockTermsCacheEntry>();
  private readonly blockTermsRefreshes = new SingleFlight<number, BlockTerms>();
  private readonly nonces: NonceReserver;

  constructor(private readonly deps: TransactionBuilderDeps) {
    this.nonces = new NonceReserver(deps.pool, deps.config.transactions.nonceReservationTtlSeconds);
  }

  async build<C extends LaurelContractName, F extends WriteFunctionName<C>>(
    request: BuildRequest<C, F>,
  ): Promise<UnsignedTransactionJson> {
    const chain = request.chain.name;
    try {
      const built = await this.assemble(request);
      this.deps.metrics?.transactionsBuilt.inc({ chain, outcome: 'built' });
      return built;
    } catch (error) {
      const outcome =
        error instanceof InsufficientFundsError
          ? 'unfunded'
          : error instanceof TransactionRevertedError
            ? 'reverted'
            : 'failed';
      this.deps.metrics?.transactionsBuilt.inc({ chain, outcome });
      throw error;
    }
  }

  private async assemble<C extends LaurelContractName, F extends WriteFunctionName<C>>(
    request: BuildRequest<C, F>,
  ): Promise<UnsignedTransactionJson> {
    const { chain, functionName } = request;
    const from = checksumAddress(request.from);
    const to = checksumAddress(request.address);
    const data = encodeFunctionCall(request.contract, functionName, request.args as readonly unknown[]);
    // provider.send, not estimateGas()/getTransactionCount(): ethers caches identical requests for
    // 250 ms, which would hand out a stale pending nonce or a stale simulation.
    const readAt = new Date();
    const [estimate, { fees, blockGasLimit }, pendingNonce, balance] = await this.deps.chains.withProvider(
      chain,
      (provider) =>
        Promise.all([
          provider
            .send('eth_estimateGas', [{ from, to, data }])
            .then((value: string) => BigInt(value))
            .catch((error: unknown) => {
              if (isRevert(error)) throw transactionRevertedError(error, { chain, to, functionName, data });
              throw error;
            }),
          this.blockTerms(chain, provider),
          provider
            .send('eth_getTransactionCount', [from, 'pending'])
            .then((value: string) => Number(BigInt(value))),
          // In the same batch as the reads above: the funds check costs no round trip of its own.
          provider.send('eth_getBalance', [from, 'pending']).then((value: string) => BigInt(value)),
        ]),
    );
    const gasLimit = gasLimitFor(estimate, blockGasLimit);
    const cost = gasLimit * fees.maxFeePerGas;
    if (balance < cost) {
      throw new InsufficientFundsError(
        {
          sender: from,
          balance: balance.toString(),
          cost: cost.toString(),
          missing: (cost - balance).toString(),
          gas_limit: gasLimit.toString(),
          max_fee_per_gas: fees.maxFeePerGas.toString(),
        },
        { chainId: chain.chainId, to, functionName },
      );
    }
    const nonce = await this.nonces.reserve(
      chain.chainId,
      from,
      { nonce: pendingNonce, readAt },
      buildCallHash(to, data),
    );
    return {
      to,
      data,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      maxFeePerGas: fees.maxFeePerGas.toString(),
      gasLimit: gasLimit.toString(),
      nonce,
      chainId: chain.chainId,
      type: 2,
    };
  }

  /** Fee data and gas limit of the chain's latest block, cached per block (see the class comment). */
  private blockTerms(chain: Chain, provider: JsonRpcProvider): Promise<BlockTerms> {
    const cached = this.blockTermsCache.get(chain.chainId);
    if (cached && Date.now() - cached.checkedAt < BLOCK_CHECK_INTERVAL_MS)
      return Promise.resolve(cached.terms);
    return this.blockTermsRefreshes.run(chain.chainId, () => this.refreshBlockTerms(chain, provider));
  }

  private async refreshBlockTerms(chain: Chain, provider: JsonRpcProvider): Promise<BlockTerms> {
    const checkedAt = Date.now();
    const { blockNumber, blockGasLimit, observed } = await readLatestBlock(chain.name, provider);
    const cached = this.blockTermsCache.get(chain.chainId);
    if (cached && cached.blockNumber === blockNumber) {
      cached.checkedAt = checkedAt;
      return cached.terms;
    }
    const fees = feesFor(
      observed,
      chain.maxFeePerGasCap === undefined ? undefined : BigInt(chain.maxFeePerGasCap),
    );
    const terms = { fees, blockGasLimit };
    this.blockTermsCache.set(chain.chainId, { blockNumber, terms, checkedAt });
    return terms;
  }
}
