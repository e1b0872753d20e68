/**
 * Finality: which blocks of a chain can no longer be reorganised. Above the finalized block lies
 * the window the indexer and the transactions keep checking against the chain (docs/reorgs.md).
 *
 * A block is final once it is `finalityDepth` blocks below the head, or earlier when the node
 * calls it `finalized` (the `finalized` block tag, unless the chain entry sets `finalizedTag:
 * false`), whichever comes first. The tag is exact where a chain has it (Ethereum: two epochs,
 * Polygon PoS: milestones within seconds), so the window shrinks to what can really change; the
 * depth bounds the window where the tag lags far behind (OP-stack and Arbitrum chains call a block
 * finalized only once its L1 batch is, thousands of L2 blocks later) or where the node has no tag.
 * The `safe` tag is not used: a safe block can still be replaced (an L1 reorganisation on an OP
 * stack chain, a justified but unfinalized checkpoint on Ethereum).
 */
import { blockHeader } from './block-headers';
import type { Chain } from './registry';

const ETHEREUM = [1, 11155111, 17000, 560048];
const POLYGON_POS = [137, 80002];
const OP_STACK = [10, 11155420, 8453, 84532];
const ARBITRUM = [42161, 42170, 421614];
/** Development nodes (anvil, Hardhat): the embedded `local` chain and test chains. */
export const DEV_CHAIN_IDS: readonly number[] = [31337, 1337];

/** Default finality depths by chain id (see the chain entry's `finalityDepth`). */
const DEFAULT_DEPTHS = new Map<number, number>([
  // Ethereum finalizes after two epochs (64 slots); the `finalized` tag is exact there.
  ...ETHEREUM.map((id) => [id, 64] as const),
  // Polygon PoS saw reorganisations of over 100 blocks before its milestones made the tag fast.
  ...POLYGON_POS.map((id) => [id, 256] as const),
  // Sequencer reorganisations of L2 blocks stay far below this; L1 finality (the tag) comes later.
  ...[...OP_STACK, ...ARBITRUM].map((id) => [id, 300] as const),
  // anvil calls head - 64 finalized. An embedded anvil restored from a save further behind is
  // indexed again from its start (chain-indexer.ts).
  ...DEV_CHAIN_IDS.map((id) => [id, 64] as const),
]);

/** For a chain id not listed: generous, as nothing is known of it (its `finalized` tag may shrink it). */
export const FALLBACK_FINALITY_DEPTH = 256;

/** The chain's finality depth: its entry's `finalityDepth`, or the default of its chain id. */
export function finalityDepthOf(chain: Chain): number {
  return chain.finalityDepth ?? DEFAULT_DEPTHS.get(chain.chainId) ?? FALLBACK_FINALITY_DEPTH;
}

/** Whether the node's `finalized` tag is asked (the chain entry's `finalizedTag`, default true). */
function usesFinalizedTag(chain: Chain): boolean {
  return chain.finalizedTag ?? true;
}

/**
 * The chain's highest final block, given its `head`: the greater of `head - finalityDepth` and the
 * node's `finalized` block. A node that does not answer the tag (too old, or an error) leaves the
 * depth alone; the tag is asked again next time.
 */
export async function finalizedBlock(chain: Chain, head: number): Promise<number> {
  const byDepth = head - finalityDepthOf(chain);
  if (!usesFinalizedTag(chain)) return byDepth;
  const tagged = await blockHeader(chain, 'finalized').catch(() => null);
  // A tag above the head comes from a node ahead of the one that gave the head: not trusted.
  return tagged && tagged.number <= head ? Math.max(byDepth, tagged.number) : byDepth;
}
