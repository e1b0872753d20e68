import type { JsonRpcProvider } from 'ethers';

/**
 * The fees of the transactions Laurel builds (docs/providers.md, "Fees"):
 *
 * - Tip (maxPriorityFeePerGas): the median, over the last FEE_HISTORY_BLOCKS blocks that held
 *   transactions, of each block's TIP_PERCENTILE-th percentile tip (`eth_feeHistory(10, 'latest',
 *   [50])`): what recent transactions actually paid, so an L2 whose transactions pay almost nothing
 *   gets almost nothing. At least MIN_PRIORITY_FEE (1 wei: geth's pools refuse a zero tip by default;
 *   on chains whose tips are 0, such as Arbitrum, that is what is paid). Without fee history (or with
 *   only empty blocks in it): the node's eth_maxPriorityFeePerGas, else 1 gwei.
 * - Cap (maxFeePerGas): 2 × the next block's base fee + the tip. The base fee grows by at most
 *   12.5 % a block, so this covers six full blocks in a row (1.125^6 ≈ 2.03) before the transaction
 *   would wait; only base fee + tip is paid.
 * - `maxFeePerGasCap` (per chain, wei): maxFeePerGas is at most this, and the tip at most that. A
 *   transaction whose cap is below the base fee waits in the pool until the base fee falls.
 * - A chain without EIP-1559 (no base fee): both fields carry the node's eth_gasPrice, capped alike.
 */

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** eth_feeHistory's answer (hex quantities). */
export interface FeeHistory {
  baseFeePerGas?: string[];
  gasUsedRatio?: number[];
  reward?: string[][];
}

/** What the node said, each null when it could not say. */
export interface FeeObservation {
  /** The latest block's base fee; null: the chain has no EIP-1559 base fee. */
  latestBaseFee: bigint | null;
  history: FeeHistory | null;
  /** eth_maxPriorityFeePerGas. */
  nodeTip: bigint | null;
  /** eth_gasPrice. */
  gasPrice: bigint | null;
}

export const FEE_HISTORY_BLOCKS = 10;
export const TIP_PERCENTILE = 50;
const BASE_FEE_HEADROOM = 2n;
const MIN_PRIORITY_FEE = 1n;
/** ethers' default tip, when the node offers no way to know better. */
const DEFAULT_PRIORITY_FEE = 1_000_000_000n;

function median(values: bigint[]): bigint {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2n;
}

/** The percentile tips of the blocks of `history` that held transactions; null when there are none. */
function recentTips(history: FeeHistory | null): bigint[] | null {
  if (!history?.reward || !history.gasUsedRatio) return null;
  const tips = history.reward
    .map((rewards, i) => ((history.gasUsedRatio![i] ?? 0) > 0 && rewards?.[0] ? BigInt(rewards[0]) : null))
    .filter((tip): tip is bigint => tip !== null);
  return tips.length ? tips : null;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

export function feesFor(observed: FeeObservation, cap?: bigint): Fees {
  const capped = (fee: bigint) => (cap === undefined ? fee : min(fee, cap));
  if (observed.latestBaseFee === null) {
    const price = capped(observed.gasPrice ?? observed.nodeTip ?? DEFAULT_PRIORITY_FEE);
    return { maxFeePerGas: price, maxPriorityFeePerGas: price };
  }
  const tips = recentTips(observed.history);
  const tip = max(MIN_PRIORITY_FEE, tips ? median(tips) : (observed.nodeTip ?? DEFAULT_PRIORITY_FEE));
  // The last base fee of the history is the next block's.
  const nextBaseFee = observed.history?.baseFeePerGas?.length
    ? BigInt(observed.history.baseFeePerGas[observed.history.baseFeePerGas.length - 1])
    : observed.latestBaseFee;
  const maxFeePerGas = capped(BASE_FEE_HEADROOM * nextBaseFee + tip);
  return { maxFeePerGas, maxPriorityFeePerGas: min(tip, maxFeePerGas) };
}

/** What the latest block says of fees: its number and gas limit, and the node's figures feesFor reads. */
export interface LatestBlock {
  blockNumber: number;
  /** The most gas the block could hold: no transaction with a higher gas limit is taken. */
  blockGasLimit: bigint;
  observed: FeeObservation;
}

/**
 * Reads the latest block (its number, gas limit and base fee) and the node's fee figures (each
 * optional one null when the node cannot say).
 */
export async function readLatestBlock(chainName: string, provider: JsonRpcProvider): Promise<LatestBlock> {
  const optional = <T>(method: string, params: unknown[] = []) =>
    provider.send(method, params).then(
      (value: T) => value,
      () => null,
    );
  const quantity = (value: string | null) => (value === null ? null : BigInt(value));
  const [block, history, nodeTip, gasPrice] = await Promise.all([
    provider.getBlock('latest'),
    optional<FeeHistory>('eth_feeHistory', [
      `0x${FEE_HISTORY_BLOCKS.toString(16)}`,
      'latest',
      [TIP_PERCENTILE],
    ]),
    optional<string>('eth_maxPriorityFeePerGas').then(quantity),
    optional<string>('eth_gasPrice').then(quantity),
  ]);
  if (!block) throw new Error(`chain ${chainName}: no latest block`);
  return {
    blockNumber: block.number,
    blockGasLimit: block.gasLimit,
    observed: { latestBaseFee: block.baseFeePerGas, history, nodeTip, gasPrice },
  };
}

/** Gas limit = estimate + 20 %, within what a block holds (gasLimitFor). */
const GAS_HEADROOM_PERCENT = 120n;

/**
 * The estimate + 20 %, but never more than the next block may hold: a node refuses a transaction
 * whose gas limit is above the block's (`intrinsic gas too high`), however little it uses. A block
 * may lower the limit by 1/1024 of its parent's, so the cap is that much below the latest block's.
 * Never below the estimate itself.
 */
export function gasLimitFor(estimate: bigint, blockGasLimit: bigint): bigint {
  const withHeadroom = (estimate * GAS_HEADROOM_PERCENT + 99n) / 100n;
  const nextBlockHolds = blockGasLimit - blockGasLimit / 1024n;
  return max(estimate, min(withHeadroom, nextBlockHolds));
}
