import { feesFor, gasLimitFor, type FeeHistory } from '../../src/chain/fees';

const gwei = (n: number) => BigInt(Math.round(n * 1e9));
const hex = (n: bigint) => `0x${n.toString(16)}`;

/** eth_feeHistory of `tips.length` blocks: each block's 50th-percentile tip (null: an empty block), base fees, next base fee last. */
function history(tips: (bigint | null)[], baseFees: bigint[]): FeeHistory {
  return {
    baseFeePerGas: baseFees.map(hex),
    gasUsedRatio: tips.map((tip) => (tip === null ? 0 : 0.5)),
    reward: tips.map((tip) => [hex(tip ?? 0n)]),
  };
}

describe('feesFor (the fee rule of docs/providers.md)', () => {
  const baseFees = Array.from({ length: 11 }, (_, i) => gwei(10 + i)); // next block: 20 gwei

  it('tip: the median of the recent blocks’ 50th-percentile tips; cap: 2 × next base fee + tip', () => {
    const tips = [1, 2, 3, 1.5, 2, 2.5, 3, 1, 2, 2].map(gwei);
    expect(
      feesFor({
        latestBaseFee: gwei(19),
        history: history(tips, baseFees),
        nodeTip: gwei(7),
        gasPrice: null,
      }),
    ).toEqual({
      maxPriorityFeePerGas: gwei(2),
      maxFeePerGas: 2n * gwei(20) + gwei(2),
    });
  });

  it('leaves empty blocks out of the median', () => {
    const tips = [null, null, null, gwei(3), null, null, gwei(5), null, null, null];
    expect(
      feesFor({ latestBaseFee: gwei(19), history: history(tips, baseFees), nodeTip: null, gasPrice: null })
        .maxPriorityFeePerGas,
    ).toBe(gwei(4));
  });

  it('gives a zero-tip L2 (Arbitrum-like) 1 wei, with a base fee of a fraction of a gwei', () => {
    const l2BaseFees = Array.from({ length: 11 }, () => 10_000_000n); // 0.01 gwei
    const tips = Array.from({ length: 10 }, () => 0n);
    expect(
      feesFor({
        latestBaseFee: 10_000_000n,
        history: history(tips, l2BaseFees),
        nodeTip: null,
        gasPrice: null,
      }),
    ).toEqual({
      maxPriorityFeePerGas: 1n,
      maxFeePerGas: 20_000_001n,
    });
  });

  it("falls back to the node's eth_maxPriorityFeePerGas without history (or with empty blocks only), then to 1 gwei", () => {
    const empty = history(
      Array.from({ length: 10 }, () => null),
      baseFees,
    );
    expect(feesFor({ latestBaseFee: gwei(19), history: empty, nodeTip: gwei(1.5), gasPrice: null })).toEqual({
      maxPriorityFeePerGas: gwei(1.5),
      maxFeePerGas: 2n * gwei(20) + gwei(1.5),
    });
    expect(feesFor({ latestBaseFee: gwei(19), history: null, nodeTip: null, gasPrice: null })).toEqual({
      maxPriorityFeePerGas: gwei(1),
      maxFeePerGas: 2n * gwei(19) + gwei(1),
    });
  });

  it('holds maxFeePerGas (and the tip under it) to the chain’s cap', () => {
    const tips = Array.from({ length: 10 }, () => gwei(2));
    const observed = {
      latestBaseFee: gwei(19),
      history: history(tips, baseFees),
      nodeTip: null,
      gasPrice: null,
    };
    expect(feesFor(observed, gwei(30))).toEqual({ maxPriorityFeePerGas: gwei(2), maxFeePerGas: gwei(30) });
    expect(feesFor(observed, gwei(1))).toEqual({ maxPriorityFeePerGas: gwei(1), maxFeePerGas: gwei(1) });
  });

  it('uses the gas price for both fields on a chain without EIP-1559, capped alike', () => {
    expect(feesFor({ latestBaseFee: null, history: null, nodeTip: gwei(1), gasPrice: gwei(5) })).toEqual({
      maxPriorityFeePerGas: gwei(5),
      maxFeePerGas: gwei(5),
    });
    expect(
      feesFor({ latestBaseFee: null, history: null, nodeTip: null, gasPrice: gwei(5) }, gwei(3)),
    ).toEqual({
      maxPriorityFeePerGas: gwei(3),
      maxFeePerGas: gwei(3),
    });
  });
});

describe('gasLimitFor', () => {
  const block = 30_000_000n;
  // The most the next block may hold: the latest's limit less the 1/1024 a block may take off.
  const nextBlockHolds = block - block / 1024n;

  it('is the estimate + 20 % (rounded up) while that fits a block', () => {
    expect(gasLimitFor(100_000n, block)).toBe(120_000n);
    expect(gasLimitFor(21_001n, block)).toBe(25_202n);
  });

  it('is capped at what the next block may hold, never below the estimate', () => {
    expect(gasLimitFor(25_095_903n, block)).toBe(nextBlockHolds);
    expect(gasLimitFor(nextBlockHolds, block)).toBe(nextBlockHolds);
    expect(gasLimitFor(29_990_000n, block)).toBe(29_990_000n);
  });
});
