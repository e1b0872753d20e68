import { CacheOnSuccess } from '../cache-on-success';
import { blockHeaderByHash, blockHeaders, type BlockHeader } from '../chain/block-headers';
import type { Chain } from '../chain/registry';
import { topics, type ChainLog, type IndexEvent } from './log-decoder';

/**
 * Timestamps of the blocks holding events that need one (apps, rewards): from the logs when the
 * node includes `blockTimestamp` in them, or from headers already read, else from the block
 * headers, asked in JSON-RPC batches.
 */
export async function blockTimesOf(
  chain: Chain,
  events: readonly IndexEvent[],
  logs: readonly ChainLog[],
  headers: Iterable<BlockHeader> = [],
): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  for (const header of headers) times.set(header.number, header.timestamp);
  for (const log of logs) if (log.blockTime !== undefined) times.set(log.blockNumber, log.blockTime);
  const missing = [
    ...new Set(
      events
        .filter((event) => (event.type === 'reward' || event.type === 'app') && !times.has(event.blockNumber))
        .map((event) => event.blockNumber),
    ),
  ];
  for (const [n, header] of await blockHeaders(chain, missing)) {
    if (!header) throw new Error(`the node has no block ${n}, which holds events`);
    times.set(n, header.timestamp);
  }
  return times;
}

/** Whether a log is one of the events whose block time the index keeps (an app's creation, a reward). */
export function needsBlockTime(log: { topics: readonly string[] }): boolean {
  return log.topics[0] === topics.rewarded || log.topics[0] === topics.appCreated;
}

/** The time of a block by its hash; null when the node does not have that block. */
export type BlockTimeByHash = (chain: Chain, hash: string) => Promise<number | null>;

/** Reads the block's header every time. */
export const readBlockTime: BlockTimeByHash = async (chain, hash) =>
  (await blockHeaderByHash(chain, hash))?.timestamp ?? null;

/** Block times kept by hash, for the most recent blocks asked. */
const BLOCK_TIMES_KEPT = 1_000;

/**
 * Block times by block hash, kept in memory: a hash names one block, whose time never changes,
 * whatever the chain does at its height later. Asks for one block made at once share one header
 * read; a block the node does not have, or a failed read, is not kept.
 */
export class BlockTimesByHash {
  private readonly times = new CacheOnSuccess<number>(BLOCK_TIMES_KEPT);

  readonly of: BlockTimeByHash = (chain, hash) =>
    this.times.get(keyOf(chain, hash), () => readBlockTime(chain, hash));

  /** Keeps a block's time the node gave with something else (a receipt), so that it is not read. */
  remember(chain: Chain, hash: string, time: number): void {
    this.times.set(keyOf(chain, hash), time);
  }
}

const keyOf = (chain: Chain, hash: string) => `${chain.chainId}:${hash.toLowerCase()}`;
