/**
 * How the indexer of one chain finds a reorganisation (docs/reorgs.md): the blocks it recorded with
 * their hashes (indexed_blocks) compared with the chain's, and the last block both still share.
 */
import type { PoolClient } from 'pg';
import { blockHeader, blockHeaders } from '../chain/block-headers';
import type { Chain } from '../chain/registry';
import { lowestRecordedBlock, recordedBlocks } from './index-store';

/** Recorded blocks compared with the chain at once while looking for the common ancestor. */
const ANCESTOR_SEARCH_BATCH = 64;

/** The chain replaced a block the index holds (found at `block`). */
export class ForkFound extends Error {
  override name = 'ForkFound';
  constructor(readonly block: number) {
    super(`the chain replaced indexed block ${block}`);
  }
}

/** A reorganisation deeper than the window: the lowest recorded block, and what the chain has there. */
export interface DeepFork {
  block: number;
  indexedHash: string;
  /** null: the node has no block at that height. */
  chainHash: string | null;
}

/** Caught up: throws ForkFound when the last recorded block up to `upTo` is not the chain's. */
export async function checkLastRecordedBlock(db: PoolClient, chain: Chain, upTo: number): Promise<void> {
  const [last] = await recordedBlocks(db, chain.chainId, upTo, 1);
  if (!last) return;
  const onChain = await blockHeader(chain, last.number);
  // No block there: the node is behind (or lost blocks); nothing is undone until it has one.
  if (onChain && onChain.hash !== last.hash) throw new ForkFound(last.number);
}

/**
 * The highest recorded block up to `below` the chain still has (compared in batches, highest
 * first), or the lowest recorded block when the chain replaced every one of them.
 */
export async function commonAncestor(
  db: PoolClient,
  chain: Chain,
  below: number,
): Promise<{ ancestor: number } | { fork: DeepFork }> {
  let lowest: DeepFork | null = null;
  for (;;) {
    const recorded = await recordedBlocks(db, chain.chainId, below, ANCESTOR_SEARCH_BATCH);
    if (recorded.length === 0) break;
    const onChain = await blockHeaders(
      chain,
      recorded.map((block) => block.number),
    );
    for (const block of recorded) {
      const chainHash = onChain.get(block.number)?.hash ?? null;
      if (chainHash === block.hash) return { ancestor: block.number };
      lowest = { block: block.number, indexedHash: block.hash, chainHash };
    }
    below = recorded[recorded.length - 1].number - 1;
  }
  if (!lowest) throw new Error('no recorded block to find the common ancestor with');
  return { fork: lowest };
}

/** After a deep fork: the lowest recorded block once the chain holds it again, else null. */
export async function heldAgain(db: PoolClient, chain: Chain): Promise<number | null> {
  const anchor = await lowestRecordedBlock(db, chain.chainId);
  const onChain = anchor ? await blockHeader(chain, anchor.number) : null;
  return anchor && onChain?.hash === anchor.hash ? anchor.number : null;
}
