/**
 * eth_getLogs for the indexer, through the chain's providers (src/chain/rpc-pool.ts): bodies are
 * decoded natively (src/chain/rpc-endpoint.ts), not by ethers' provider, which decodes UTF-8 in
 * JavaScript, the largest CPU cost of catching up.
 *
 * Ranges: a range a provider refuses (too many blocks, too many results: the wordings of Alchemy,
 * Infura, QuickNode, Ankr, public nodes...) is split here, into as many calls as that provider's
 * limits need, so the caller gets every log of the range it asked for. Only a node error that no
 * split can help (or no provider answering: ChainUnavailableError) is thrown; the indexer then
 * halves its range and retries as for any failed range.
 */
import type { Chain } from '../chain/registry';
import type { LogFilter, RawLog } from '../chain/rpc-pool';

export type { LogFilter, RawLog };

/** The logs matching `filter`, every block of its range included. */
export function getLogs(chain: Chain, filter: LogFilter): Promise<RawLog[]> {
  return chain.provider.pool.getLogs(filter);
}
