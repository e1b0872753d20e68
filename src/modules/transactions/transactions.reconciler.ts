import { freeNoncesOf } from '../../chain/nonces';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { PrismaClient } from '../../db/prisma';
import type { Logger } from '../../logger';
import { TransactionsRepository } from './transactions.repository';

/** Blocks below the head that a recorded mined transaction is checked in (deeper ones are final). */
export const RECONCILE_DEPTH_BLOCKS = 64;

export interface ReconcileDeps {
  prisma: PrismaClient;
  chains: ChainRegistry;
  log: Logger;
  /** Pending rows younger than this are left to their receipt job (TRANSACTION_DROP_AFTER_SECONDS). */
  inFlightMs: number;
}

/**
 * Makes what Laurel recorded agree with a chain again (run on every start and after the local
 * chain restarts): a transaction recorded as broadcast or mined that the node does not know, such
 * as one mined in blocks a crashed anvil did not save, or one a node dropped from its pool, is
 * marked `dropped`, its receipt job removed and its nonce freed, so the sender's next build uses
 * the chain's next nonce instead of waiting behind a gap. Returns the hashes marked dropped.
 */
export async function reconcileChain(deps: ReconcileDeps, chain: Chain): Promise<string[]> {
  const transactions = new TransactionsRepository(deps.prisma);
  const head = await deps.chains.call(chain, (provider) => provider.getBlockNumber());
  const rows = await transactions.unsettled(
    chain.chainId,
    head - RECONCILE_DEPTH_BLOCKS,
    new Date(Date.now() - deps.inFlightMs),
  );
  const dropped: string[] = [];
  for (const row of rows) {
    const known = await deps.chains.call(chain, (provider) => provider.getTransaction(row.hash));
    if (known || !(await transactions.markDropped(chain.chainId, row.hash, row.status))) continue;
    dropped.push(row.hash);
    deps.log.warn(
      {
        chain: chain.name,
        hash: row.hash,
        sender: row.fromAddress,
        nonce: Number(row.nonce),
        was: row.status,
      },
      'transaction unknown to the node: marked dropped, its nonce freed',
    );
  }
  await freeNoncesOf(deps.prisma, chain.chainId, dropped);
  return dropped;
}

/** reconcileChain for every served chain; a chain that does not answer is skipped (and logged). */
export async function reconcileAllChains(deps: ReconcileDeps): Promise<void> {
  for (const chain of deps.chains.list()) {
    try {
      await reconcileChain(deps, chain);
    } catch (error) {
      deps.log.warn(
        { chain: chain.name, err: (error as Error).message },
        'could not reconcile recorded transactions with the chain; will do on the next start',
      );
    }
  }
}
