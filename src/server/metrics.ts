import type { ChainRegistry } from '../chain/registry';
import { openReservationsByChain } from '../chain/nonces';
import type { PrismaClient } from '../db/prisma';
import { queueDepth } from '../jobs/queue';
import type { LaurelMetrics } from '../metrics';

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
    pendingByChain: () => Promise<Map<number, number>>;
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
  metrics.observe(metrics.receiptsPending, async () => byChain(deps.chains, await deps.pendingByChain()));
}
