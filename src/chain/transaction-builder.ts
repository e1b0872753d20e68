import { getAddress, isError, type Interface, type JsonRpcProvider } from 'ethers';
import { nodeMessageOf } from './rpc-errors';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import { AppError } from '../errors';
import { decodeLaurelRevert, revertDataOf, type AbiErrorItem } from './contracts';
import { reserveNonce } from './nonces';
import type { Chain, ChainRegistry } from './registry';

/** The unsigned EIP-1559 transaction every build answers, as the interface shows it. */
export interface UnsignedTransactionJson {
  to: string;
  data: string;
  /** Decimal integer strings. */
  maxPriorityFeePerGas: string;
  maxFeePerGas: string;
  gasLimit: string;
  /** Same value as gasLimit; only in credit creation, approval and ERC-20 reward responses. */
  gas?: string;
  nonce: number;
  chainId: number;
  type: 2;
}

export interface BuildRequest {
  chain: Chain;
  /** The sender: the caller's wallet (ctx.account.address). */
  from: string;
  /** The contract called. */
  to: string;
  /** Encoded call data. */
  data: string;
  /** For error reports (`function_name`). */
  functionName: string;
  /** The called contract's ABI: its custom errors are decoded first. */
  contractInterface: Interface;
  /** Whether the answer carries `gas` (credit creation, approval and ERC-20 rewards). */
  includeGas: boolean;
}

/** `error.transaction_error` of a build whose simulation reverted. */
export interface TransactionErrorDetails {
  /** `NotOperator(0xAbC…)`, the `Error(string)` message, or `execution reverted`. */
  reason: string;
  message: string;
  /** The node's own message. */
  detailsMessage: string;
  contract_address: string;
  chain_id: number;
  function_name: string;
  data: {
    abiItem: { inputs: AbiErrorItem['inputs']; name: string; type: string } | null;
    errorName: string | null;
  };
}

/**
 * The simulation of a transaction being built reverted: 422, code `transaction_error`, with the
 * decoded revert under `transaction_error` (Shape B `error.transaction_error`, Shape A
 * `transaction_error`, GraphQL `extensions.transaction_error`).
 */
export class TransactionRevertedError extends AppError {
  constructor(readonly transactionError: TransactionErrorDetails) {
    super('transaction_error', transactionError.message, 422, { transaction_error: transactionError });
  }
}

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

function formatArgument(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(formatArgument).join(', ')}]`;
  return String(value);
}

interface DecodedRevert {
  errorName: string;
  args: unknown[];
  abiItem: { inputs: AbiErrorItem['inputs']; name: string; type: string };
}

function decodeRevert(contractInterface: Interface, data: string | null): DecodedRevert | null {
  if (!data) return null;
  // Every Laurel contract's errors (with the ABI items as compiled, internalType included) first.
  const laurel = decodeLaurelRevert(data);
  if (laurel) {
    const { inputs, name, type } = laurel.abiItem;
    return { errorName: laurel.errorName, args: laurel.args, abiItem: { inputs, name, type } };
  }
  try {
    const parsed = contractInterface.parseError(data);
    if (!parsed) return null;
    const json = JSON.parse(parsed.fragment.format('json')) as DecodedRevert['abiItem'];
    return {
      errorName: parsed.name,
      args: parsed.args.toArray(true),
      abiItem: { inputs: json.inputs, name: json.name, type: 'error' },
    };
  } catch {
    return null;
  }
}

/** Turns a reverted simulation into the documented `transaction_error`. */
export function transactionRevertedError(
  error: unknown,
  context: { chain: Chain; to: string; functionName: string; contractInterface: Interface },
): TransactionRevertedError {
  const data = revertDataOf(error);
  const decoded = decodeRevert(context.contractInterface, data);
  let reason: string;
  if (!decoded) {
    // No revert data at all (ethers calls it "require(false)"): out of gas, or an invalid
    // operation such as an amount too large for one transaction.
    reason =
      data && data !== '0x'
        ? `unknown custom error ${data.slice(0, 10)}`
        : 'execution reverted without a reason (out of gas or an invalid operation)';
  } else if (decoded.errorName === 'Error') {
    reason = String(decoded.args[0]);
  } else {
    reason = `${decoded.errorName}(${decoded.args.map(formatArgument).join(', ')})`;
  }
  return new TransactionRevertedError({
    reason,
    message: `The contract function "${context.functionName}" reverted with the following reason: ${reason}`,
    detailsMessage: nodeMessageOf(error, 'execution reverted'),
    contract_address: getAddress(context.to),
    chain_id: context.chain.chainId,
    function_name: context.functionName,
    data: { abiItem: decoded?.abiItem ?? null, errorName: decoded?.errorName ?? null },
  });
}

function isRevert(error: unknown): boolean {
  return isError(error, 'CALL_EXCEPTION') || revertDataOf(error) !== null;
}

export interface TransactionBuilderDeps {
  prisma: PrismaClient;
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
 *   - nonce: the node's pending nonce, then a reservation in PostgreSQL (src/chain/nonces.ts).
 * The RPC calls of one build are made in the same tick (one JSON-RPC batch), through
 * ChainRegistry.call (deadline; a dead node is a 503).
 */
export class TransactionBuilder {
  private readonly feeCache = new Map<number, FeeCacheEntry>();
  private readonly feeRefreshes = new Map<number, Promise<Fees>>();

  constructor(private readonly deps: TransactionBuilderDeps) {}

  async build(request: BuildRequest): Promise<UnsignedTransactionJson> {
    const { chain } = request;
    const from = getAddress(request.from);
    const to = getAddress(request.to);
    // provider.send, not estimateGas()/getTransactionCount(): ethers caches identical requests for
    // 250 ms, which would hand out a stale pending nonce or a stale simulation.
    const [estimate, fees, pendingNonce] = await this.deps.chains.call(chain, (provider) =>
      Promise.all([
        provider
          .send('eth_estimateGas', [{ from, to, data: request.data }])
          .then((value: string) => BigInt(value))
          .catch((error: unknown) => {
            if (isRevert(error)) throw transactionRevertedError(error, { ...request, to });
            throw error;
          }),
        this.fees(chain, provider),
        provider
          .send('eth_getTransactionCount', [from, 'pending'])
          .then((value: string) => Number(BigInt(value))),
      ]),
    );
    const nonce = await reserveNonce(this.deps.prisma, {
      chainId: chain.chainId,
      sender: from,
      pendingNonce,
      ttlSeconds: this.deps.config.transactions.nonceReservationTtlSeconds,
    });
    const gasLimit = ((estimate * GAS_HEADROOM_PERCENT + 99n) / 100n).toString();
    return {
      to,
      data: request.data,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      maxFeePerGas: fees.maxFeePerGas.toString(),
      gasLimit,
      ...(request.includeGas ? { gas: gasLimit } : {}),
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
