import type { ChainRegistry } from '../chain/registry';
import type { PrismaClient } from '../db/prisma';
import { queueDepth } from '../jobs/queue';
import type { ChainIndexerStatus } from '../indexer/chain-indexer';
import type { Indexer } from '../indexer/indexer';
import type { LaurelMetrics } from '../metrics';
import { openReservationsByChain } from '../modules/transactions/building/nonce-reservations';
import { pendingByChain } from '../modules/transactions/transactions.repository';

/** Per chain id counts, as readings labelled with the chain's name (every served chain, 0 when absent). */
function byChain(chains: ChainRegistry, counts: Map<number, number>) {
  return chains
    .list()
    .map((chain) => ({ labels: { chain: chain.name }, value: counts.get(chain.chainId) ?? 0 }));
}

/**
 * The gauges read from PostgreSQL at each scrape: the job queue, nonce reservations and receipts
 * pending. They count rows of the whole database: every process reports the same values (take
 * `max` across instances).
 */
export function observeDatabaseState(
  metrics: LaurelMetrics,
  deps: {
    prisma: PrismaClient;
    chains: ChainRegistry;
    /** Every task the workers run: a task without runnable jobs reads 0. */
    tasks: readonly string[];
  },
): void {
  // One query for both queue gauges of a scrape.
  let lastDepth: {
    at: number;
    rows: Promise<{ task: string; runnable?: number; oldestRunnableSeconds?: number }[]>;
  } | null = null;
  const depth = () => {
    if (!lastDepth || Date.now() - lastDepth.at > 1000) {
      const rows = queueDepth(deps.prisma).then((found) => {
        const byTask = new Map(found.map((row) => [row.task, row]));
        return deps.tasks.map((task) => ({ task, ...byTask.get(task) }));
      });
      lastDepth = { at: Date.now(), rows };
    }
    return lastDepth.rows;
  };
  metrics.observe(metrics.jobsRunnable, async () =>
    (await depth()).map(({ task, runnable }) => ({ labels: { task }, value: runnable ?? 0 })),
  );
  metrics.observe(metrics.jobsOldestRunnableAge, async () =>
    (await depth()).map(({ task, oldestRunnableSeconds }) => ({
      labels: { task },
      value: oldestRunnableSeconds ?? 0,
    })),
  );
  metrics.observe(metrics.nonceReservations, async () =>
    byChain(deps.chains, await openReservationsByChain(deps.prisma)),
  );
  metrics.observe(metrics.receiptsPending, async () =>
    byChain(deps.chains, await pendingByChain(deps.prisma)),
  );
}

/** The indexers' state, as this process knows it (its active indexers and standbys alike). */
export function observeIndexer(metrics: LaurelMetrics, indexer: Pick<Indexer, 'status'>): void {
  const readings = (value: (status: ChainIndexerStatus) => number | null) => () =>
    indexer.status().flatMap((status) => {
      const reading = value(status);
      return reading === null ? [] : [{ labels: { chain: status.chain }, value: reading }];
    });
  metrics.observe(
    metrics.indexerHead,
    readings((status) => status.head),
  );
  metrics.observe(
    metrics.indexerIndexed,
    readings((status) => (status.cursor >= 0 ? status.cursor : null)),
  );
  metrics.observe(
    metrics.indexerLagBlocks,
    readings((status) => status.lag),
  );
  metrics.observe(
    metrics.indexerLagSeconds,
    readings((status) =>
      status.cursorTime === null ? null : Math.max(0, Date.now() / 1000 - status.cursorTime),
    ),
  );
}
