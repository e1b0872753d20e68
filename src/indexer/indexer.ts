/** The indexers of every configured chain, over one connection pool of their own. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { ChainEventHub } from '../chain/chain-events';
import type { Chain } from '../chain/registry';
import { createPool } from '../db/connection';
import type { NotificationSession } from '../db/notifications';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import type { ChainTextLimits } from '../stored-text';
import { BlockTimesByHash, needsBlockTime } from './block-times';
import { ChainIndexer, type ChainIndexerOptions, type ChainIndexerStatus } from './chain-indexer';
import { IndexChanges } from './index-changes';
import { pruneUnindexable, readCursor } from './index-store';
import { ingestReceiptLogs, type ReceiptIngested, type ReceiptLogs } from './receipt-ingestion';
import { KeyedBatches } from '../keyed-batches';

/** Receipts of one chain ingested together, at most this many. */
const RECEIPT_BATCH_MAX = 100;
/**
 * How long a receipt whose ingestion failed waits for the indexer to pass its block: the indexer
 * reaches it within its poll interval (INDEXER_POLL_INTERVAL_MS, 1 s by default) on a healthy chain.
 */
const RECEIPT_INDEXED_WAIT_MS = 10_000;

export interface IndexerOptions {
  /**
   * A session connection (DATABASE_DIRECT_URL): an active indexer holds its chain's session
   * advisory lock for as long as it indexes.
   */
  sessionUrl: string;
  /** The process's LISTEN session: index changes of other processes are heard on it once it listens. */
  notifications: NotificationSession;
  chains: Chain[];
  log: Logger;
  pollIntervalMs: number;
  maxBlockRange: number;
  /** Where a chain's index rolled back to `ancestor` (the chain replaced the blocks above) is published. */
  events?: ChainEventHub;
  /** Counts the events written (null: METRICS=off). */
  metrics?: LaurelMetrics | null;
  /** Bounds of the names, symbols and base URIs stored (CHAIN_TEXT_*). */
  text: ChainTextLimits;
  /** Days the record of an unindexable event is kept. */
  unindexableRetentionDays: number;
}

export class Indexer {
  /** One session per chain holds the chain's lock and writes its ranges; two more for receipts. */
  readonly pool: Pool;
  private readonly indexers: ChainIndexer[];
  /** Commits of index rows, this process's and (once the notification session listens) every other's. */
  readonly changes: IndexChanges;
  /** The times of receipts' blocks, by block hash. */
  private readonly blockTimes = new BlockTimesByHash();
  /** Receipts of execute-and-wait to ingest, per chain id. */
  private readonly receipts = new KeyedBatches<{ chain: Chain; receipt: ReceiptLogs }, boolean>(
    RECEIPT_BATCH_MAX,
    async (items) => {
      const ingested = await this.ingestReceipts(
        items[0].chain,
        items.map((item) => item.receipt),
      );
      return items.map(({ receipt }) => ingested !== null && !ingested.unresolved.has(receipt));
    },
  );

  constructor(private readonly options: IndexerOptions) {
    // One session per chain holds the chain's lock and writes its ranges; two more for receipts.
    this.pool = createPool(options.sessionUrl, { max: options.chains.length + 2 });
    this.pool.on('error', (error) => options.log.warn({ err: error }, 'indexer: idle connection lost'));
    this.indexers = options.chains.map((chain) => new ChainIndexer(this.chainOptions(chain)));
    this.changes = new IndexChanges(options.notifications);
    options.events?.on('chainRestarted', (chain) => this.chainRestarted(chain));
  }

  /**
   * The chain's node started again from a saved state (chainRestarted, or the embedded chain at
   * Laurel's start): it may hold fewer blocks than the index, whose blocks above are then undone.
   */
  chainRestarted(chain: Chain): void {
    for (const indexer of this.indexers) if (indexer.chain === chain) indexer.restarted();
  }

  private chainOptions(chain: Chain): ChainIndexerOptions {
    const { log, pollIntervalMs, maxBlockRange, events, metrics, text } = this.options;
    return {
      chain,
      pool: this.pool,
      log,
      pollIntervalMs,
      maxBlockRange,
      startBlock: chain.startBlock ?? 0,
      onReorganised: (reorganised, ancestor) => {
        metrics?.indexerReorgs.inc({ chain: reorganised.name });
        events
          ?.publish('chainReorganised', { chain: reorganised, ancestor })
          .catch((error: unknown) =>
            log.warn(
              { chain: reorganised.name, err: error },
              'indexer: a reorganisation was not heard by all',
            ),
          );
      },
      metrics,
      text,
    };
  }

  /** Housekeeping (maintenance__prune): the records of unindexable events past their retention. */
  async pruneExpired(): Promise<Record<string, number>> {
    return {
      'unindexable events': await pruneUnindexable(this.pool, this.options.unindexableRetentionDays),
    };
  }

  start(): void {
    for (const indexer of this.indexers) indexer.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.indexers.map((indexer) => indexer.stop()));
    await this.pool.end();
  }

  status(): ChainIndexerStatus[] {
    return this.indexers.map((indexer) => indexer.status());
  }

  /**
   * Puts a successful receipt's events into the index now (read-your-writes after execute-and-wait).
   * A failure is logged, not thrown: the transaction went through, and the indexer still reaches
   * it; the caller then waits (bounded) until the indexer has, so that reads still see the receipt.
   * It waits the same way for a receipt with a log of a contract the index does not know yet.
   * The receipts of concurrent calls for a chain go in together (one transaction, one turn of the
   * chain's cursor lock): one by one, they would queue for the lock and this pool's two spare
   * connections. `blockTime`: the time of the
   * receipt's block when the node sent it with the receipt (receiptBlockTime), else it is read.
   */
  async ingestReceipt(chain: Chain, receipt: ReceiptLogs, blockTime?: number): Promise<void> {
    // The block's time as the node sent it with the receipt, or else read while the receipt waits
    // for its batch (a failure shows there).
    if (blockTime !== undefined) {
      this.blockTimes.remember(chain, receipt.blockHash, blockTime);
    } else if (receipt.logs.some(needsBlockTime)) {
      this.blockTimes.of(chain, receipt.blockHash).catch(() => undefined);
    }
    const ingested = await this.receipts.submit(String(chain.chainId), { chain, receipt });
    if (ingested) return;
    // The indexer's commit of the block may not have been heard of here yet (its notification
    // comes over another connection): reported now, before the caller reads.
    if (await this.indexedPast(chain, receipt.blockNumber)) {
      this.changes.changed({ chainId: chain.chainId, rewardsFromDay: -Infinity, removed: false });
    }
  }

  /**
   * Waits until the chain's cursor (whichever process indexes it) has passed `block`, at most
   * RECEIPT_INDEXED_WAIT_MS; false when it has not.
   */
  private async indexedPast(chain: Chain, block: number): Promise<boolean> {
    const deadline = Date.now() + RECEIPT_INDEXED_WAIT_MS;
    for (let pause = 25; ; pause = Math.min(pause * 2, 250)) {
      const cursor = await readCursor(this.pool, chain.chainId).catch(() => null);
      if (cursor !== null && cursor >= block) return true;
      if (Date.now() + pause > deadline) {
        this.options.log.warn(
          { chain: chain.name, block, cursor },
          'indexer: a receipt not ingested, and its block not indexed in time: execute-and-wait answers without it',
        );
        return false;
      }
      await sleep(pause);
    }
  }

  /** Ingests the receipts in one transaction; null when that failed (logged). */
  private async ingestReceipts(chain: Chain, receipts: ReceiptLogs[]): Promise<ReceiptIngested | null> {
    const written = await ingestReceiptLogs(
      this.pool,
      chain,
      receipts,
      chain.startBlock ?? 0,
      this.blockTimes.of,
      this.options.text,
    ).catch((error: unknown) => {
      this.options.log.warn({ chain: chain.name, err: error }, 'indexer: receipt not ingested');
      return null;
    });
    if (written && written.events > 0) {
      this.options.metrics?.indexerEvents.inc({ chain: chain.name }, written.events);
    }
    // Before the callers answer: this process's cached reads of the chain are already outdated,
    // and replicas must replay the commit. That holds for events another transaction wrote too
    // (the indexer's, likely in the same moment): its notification may not have been heard yet.
    if (written && written.events + written.found > 0) {
      this.changes.changed({
        chainId: chain.chainId,
        rewardsFromDay: written.rewardsFromDay,
        removed: false,
      });
    }
    return written;
  }
}
