import { blockHeaders, type BlockHeader } from '../chain/block-headers';
import type { Chain } from '../chain/registry';
import type { ChainLog, IndexEvent } from './log-decoder';

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
