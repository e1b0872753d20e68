import type { EventHub } from '../event-hub';
import type { Chain } from './registry';

/** What happens to a served chain that parts of Laurel built after the chains must hear of. */
export interface ChainEvents {
  /** The local chain is back after a crash (Laurel's contracts there again): it may have lost blocks. */
  chainRestarted: Chain;
  /** The indexer rolled the chain's index back to `ancestor`: the chain replaced the blocks above. */
  chainReorganised: { chain: Chain; ancestor: number };
}

/** The process's hub of chain events: created before the chains start, published by them and the indexer. */
export type ChainEventHub = EventHub<ChainEvents>;
