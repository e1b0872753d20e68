import type { Chain } from '../chain/registry';
import type { ChainLog, IndexEvent } from './log-decoder';

const BLOCKS_PER_HEADER_BATCH = 200;
const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * Timestamps of the blocks holding events that need one (apps, rewards): from the logs when the
 * node includes `blockTimestamp` in them, else from the block headers, asked in JSON-RPC batches.
 */
export async function blockTimesOf(
  chain: Chain,
  events: readonly IndexEvent[],
  logs: readonly ChainLog[],
): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  for (const log of logs) if (log.blockTime !== undefined) times.set(log.blockNumber, log.blockTime);
  const missing = [
    ...new Set(
      events
        .filter((event) => (event.type === 'reward' || event.type === 'app') && !times.has(event.blockNumber))
        .map((event) => event.blockNumber),
    ),
  ];
  for (let i = 0; i < missing.length; i += BLOCKS_PER_HEADER_BATCH) {
    const batch = missing.slice(i, i + BLOCKS_PER_HEADER_BATCH);
    // Sent in the same tick, these go out as JSON-RPC batches (see createProvider).
    const blocks = await Promise.all(
      batch.map(
        (n) => chain.provider.send('eth_getBlockByNumber', [hex(n), false]) as Promise<{ timestamp: string }>,
      ),
    );
    batch.forEach((n, j) => times.set(n, Number(blocks[j].timestamp)));
  }
  return times;
}
