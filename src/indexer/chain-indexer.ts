/**
 * The indexer of one chain: follows the events of Laurel's contracts into the index tables.
 *
 * - Only blocks with the chain's `confirmations` are indexed (the head minus confirmations - 1),
 *   the same depth execute-and-wait waits for.
 * - Reorganisations (docs/reorgs.md): every block indexed above the chain's finalized block is
 *   recorded with its hash (indexed_blocks) and what undoing it needs. Each range must extend the
 *   recorded chain (its first block's parent is the recorded hash of the block before), and when
 *   caught up the last recorded block is compared with the chain's on every poll. A block the chain
 *   replaced sends the indexer back to the last block it shares with the chain: in one transaction
 *   what the blocks above wrote is undone, the chain's blocks from there are indexed and the cursor
 *   moves, and read caches hear of it from the first day it touched. A chain that replaced even
 *   the lowest recorded block (a reorganisation deeper than the window) stops the indexer of that
 *   chain, loudly, until the chain holds the indexed blocks again (the comparisons: chain-forks.ts);
 *   an embedded chain restored from a save that far behind is indexed again from its start.
 * - Each block range is written in one transaction that also moves the chain's cursor, under a
 *   row lock on the cursor, so a crash never double-counts or skips and receipt ingestion
 *   (read-your-writes) cannot interleave with it (range-commit.ts).
 * - Catching up, the range after the one being written is already being fetched, and requests
 *   narrow after a failure (range-plan.ts).
 * - One active indexer per chain across processes: a session advisory lock; the others stand by
 *   and retry, taking over when the holder's connection ends.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Pool, PoolClient } from 'pg';
import { doublingDelayMs } from '../backoff';
import { finalityDepthOf, finalizedBlock } from '../chain/finality';
import type { Chain } from '../chain/registry';
import { isConnectionLost } from '../db/availability';
import { inTransaction } from '../db/transaction';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import { DEFAULT_CHAIN_TEXT_LIMITS, type ChainTextLimits } from '../stored-text';
import { checkLastRecordedBlock, commonAncestor, ForkFound, heldAgain, type DeepFork } from './chain-forks';
import {
  highestReceiptLogBlock,
  loadKnownContracts,
  lockCursor,
  readCursor,
  unindexableSummary,
  type UnindexableLog,
  type UnindexableSummary,
} from './index-store';
import type { KnownContracts } from './log-decoder';
import { forgetChainIndex } from './index-rollback';
import { commitRange } from './range-commit';
import { ChainMovedError, fetchRange, type FetchedRange } from './range-fetcher';
import { RangePlan } from './range-plan';

export interface ChainIndexerOptions {
  chain: Chain;
  pool: Pool;
  log: Logger;
  /** How long to wait for new blocks once caught up (and between lock attempts on standby). */
  pollIntervalMs: number;
  /** The largest block range asked of eth_getLogs at once; halved on errors, grown back on success. */
  maxBlockRange: number;
  /** First block to index (the factory's deployment block, or 0). */
  startBlock: number;
  /** Told once the index was rolled back to `ancestor` (blocks above it were replaced on the chain). */
  onReorganised?: (chain: Chain, ancestor: number) => void;
  /** Counts the events written (null: METRICS=off). */
  metrics?: LaurelMetrics | null;
  /** Bounds of the names, symbols and base URIs stored (CHAIN_TEXT_*; their defaults when absent). */
  text?: ChainTextLimits;
}

export interface ChainIndexerStatus {
  chain: string;
  /** Holds the chain's advisory lock and indexes; otherwise waits to take over. */
  active: boolean;
  /** Last block indexed (-1: none yet). */
  cursor: number;
  /** Latest block the node reported. */
  head: number | null;
  /** Blocks between the cursor and the head. */
  lag: number | null;
  /** The time of the last indexed block, seconds since the epoch (null: not read yet). */
  cursorTime: number | null;
  /** The chain's finalized block when a range was last indexed: the blocks above are tracked. */
  finalized: number | null;
  /** Set while the indexer is stopped by a reorganisation deeper than the window. */
  fork: DeepFork | null;
  /**
   * Events of Laurel's contracts passed without being written (table unindexable_events): a warning
   * for an operator, not a failure (the index goes on without them). Null until read.
   */
  unindexable: UnindexableSummary | null;
}

const PROGRESS_LOG_INTERVAL_MS = 5_000;
const MAX_BACKOFF_MS = 30_000;

export class ChainIndexer {
  private stopped = false;
  private wake = new AbortController();
  private loop: Promise<void> | null = null;
  private active = false;
  private cursor = -1;
  private head: number | null = null;
  /** The time of the last indexed block (seconds since the epoch), when its header was read. */
  private cursorTime: number | null = null;
  private finalized: number | null = null;
  private fork: DeepFork | null = null;
  private unindexable: UnindexableSummary | null = null;
  private known: KnownContracts | null = null;
  /** The node restarted from a saved state since the last look: it may have lost indexed blocks. */
  private restartedSince = false;
  private readonly text: ChainTextLimits;

  constructor(private readonly options: ChainIndexerOptions) {
    this.text = options.text ?? DEFAULT_CHAIN_TEXT_LIMITS;
  }

  get chain(): Chain {
    return this.options.chain;
  }

  /**
   * The node started again from a saved state. A node behind the index is otherwise waited for
   * (another provider may be ahead); this one lost the blocks above its head: they are undone on
   * the next turn, as the blocks of a reorganisation.
   */
  restarted(): void {
    this.restartedSince = true;
    if (this.stopped) return;
    this.wake.abort();
    this.wake = new AbortController();
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    await this.loop;
  }

  status(): ChainIndexerStatus {
    return {
      chain: this.options.chain.name,
      active: this.active,
      cursor: this.cursor,
      head: this.head,
      lag: this.head === null ? null : Math.max(0, this.head - this.cursor),
      cursorTime: this.cursorTime,
      finalized: this.finalized,
      fork: this.fork,
      unindexable: this.unindexable,
    };
  }

  private async sleep(ms: number): Promise<void> {
    await delay(ms, undefined, { signal: this.wake.signal }).catch(() => undefined);
  }

  private async run(): Promise<void> {
    const { pool, log, pollIntervalMs, chain } = this.options;
    while (!this.stopped) {
      let lockHolder: PoolClient | null = null;
      // A checked-out client whose connection breaks emits 'error' (uncaught, it would end the
      // process): noted here, the session is given up and a new one is opened.
      const session = { lost: false };
      const onLost = (error: Error) => {
        session.lost = true;
        log.warn({ chain: chain.name, err: error }, 'indexer: database connection lost');
      };
      try {
        lockHolder = await pool.connect();
        lockHolder.on('error', onLost);
        const { rows } = await lockHolder.query<{ locked: boolean }>(
          `SELECT pg_try_advisory_lock(hashtextextended('laurel-indexer:' || $1::text, 0)) AS locked`,
          [chain.chainId],
        );
        if (rows[0].locked) {
          this.active = true;
          log.info({ chain: chain.name }, 'indexer active');
          await this.follow(lockHolder, session);
        } else {
          await this.refreshStandbyStatus(lockHolder);
        }
      } catch (error) {
        log.warn({ chain: chain.name, err: error }, 'indexer interrupted; retrying');
      } finally {
        this.active = false;
        // Ending the session (not returning it to the pool) releases the advisory lock.
        lockHolder?.off('error', onLost);
        lockHolder?.release(true);
      }
      await this.sleep(pollIntervalMs);
    }
  }

  private async refreshStandbyStatus(db: PoolClient): Promise<void> {
    this.cursor = (await readCursor(db, this.options.chain.chainId)) ?? this.cursor;
    this.unindexable = await unindexableSummary(db, this.options.chain.chainId);
    this.head = await this.options.chain.provider.getBlockNumber();
  }

  /** Indexes ranges until stopped; throws when the database connection fails. */
  private async follow(db: PoolClient, session: { lost: boolean }): Promise<void> {
    const { chain, log, maxBlockRange, pollIntervalMs, startBlock } = this.options;
    this.cursor = await inTransaction(db, () => lockCursor(db, chain.chainId, startBlock));
    this.known = await loadKnownContracts(db, chain);
    this.unindexable = await unindexableSummary(db, chain.chainId);
    const plan = new RangePlan(chain, maxBlockRange, this.text);
    let failures = 0;
    let forkFound = false;
    /**
     * The node restarted from a saved state, and the index has not matched the chain since: a fork
     * found meanwhile is what its save lacked (also when blocks mined since then filled the gap).
     */
    let restoredFromSave = false;
    let catchUp: { since: number; fromCursor: number; events: number; lastLog: number } | null = null;

    while (!this.stopped) {
      if (session.lost) throw new Error('database connection lost');
      // What a failure interrupted, for its log line; only a range's failure halves the range.
      let step: 'head' | 'range' | 'reorganisation' = 'head';
      try {
        if (this.fork) {
          await this.awaitForkResolved(db);
          continue;
        }
        if (forkFound) {
          plan.dropAhead();
          step = 'reorganisation';
          await this.reorganise(db, plan.blocksPerRequest, restoredFromSave);
          forkFound = false;
          restoredFromSave = false;
          failures = 0;
          continue;
        }
        const restarted = this.restartedSince;
        this.restartedSince = false;
        if (restarted) restoredFromSave = true;
        this.head = await chain.provider.getBlockNumber();
        // What the index holds above the head, receipts ingested ahead of the cursor included.
        const indexedTo = restarted
          ? Math.max(this.cursor, (await highestReceiptLogBlock(db, chain.chainId)) ?? -1)
          : this.cursor;
        if (indexedTo > this.head) {
          log.warn(
            { chain: chain.name, indexedTo, head: this.head },
            'indexer: the chain restarted from a saved state with fewer blocks than indexed; the blocks above it are undone',
          );
          forkFound = true;
          continue;
        }
        const safeHead = this.head - (chain.confirmations - 1);
        if (this.cursor >= safeHead) {
          await this.checkLastBlock(db);
          restoredFromSave = false;
          if (catchUp) {
            log.info({ chain: chain.name, block: this.cursor }, 'indexer caught up');
            catchUp = null;
          }
          await this.sleep(pollIntervalMs);
          continue;
        }
        const finalized = await finalizedBlock(chain, this.head);
        this.finalized = finalized;
        step = 'range';
        const from = this.cursor + 1;
        const fetched = await plan.fetch(this.known, from, safeHead, finalized);
        const { to } = fetched;
        const events = await this.writeRange(db, fetched);
        restoredFromSave = false;
        failures = 0;
        plan.written();

        const now = Date.now();
        if (!catchUp && safeHead - to > plan.blocksPerRequest)
          catchUp = { since: now, fromCursor: from - 1, events: 0, lastLog: now };
        if (catchUp) {
          catchUp.events += events;
          if (now - catchUp.lastLog >= PROGRESS_LOG_INTERVAL_MS) {
            catchUp.lastLog = now;
            const seconds = (now - catchUp.since) / 1000;
            log.info(
              {
                chain: chain.name,
                blocksDone: to - catchUp.fromCursor,
                blocksLeft: safeHead - to,
                eventsPerSecond: Math.round(catchUp.events / seconds),
              },
              'indexer catching up',
            );
          }
        }
        // Caught up with a chain that makes blocks faster than the poll interval (a local chain
        // mining each transaction), it still looks once per interval: execute-and-wait puts its
        // receipts' events in at once, and a range of several blocks costs what one block costs.
        if (to >= safeHead) await this.sleep(pollIntervalMs);
      } catch (error) {
        plan.dropAhead();
        if (session.lost || isConnectionLost(error)) throw error;
        if (error instanceof ForkFound) {
          // Handled at once, on the next turn.
          log.warn({ chain: chain.name, block: error.block }, 'indexer: the chain replaced an indexed block');
          forkFound = true;
          continue;
        }
        failures += 1;
        // A range read while the chain moved is read again as it is; one that failed otherwise, halved.
        if (step === 'range' && !(error instanceof ChainMovedError)) plan.narrow();
        log.warn(
          { chain: chain.name, cursor: this.cursor, err: error, nextRange: plan.blocksPerRequest },
          `indexer: ${step} failed`,
        );
        await this.sleep(doublingDelayMs(failures, 250, MAX_BACKOFF_MS));
      }
    }
  }

  /**
   * Writes a fetched range and moves the cursor to its end, in one transaction; returns the events
   * written. With `rollbackTo`, what the blocks above that one wrote is undone first (the range
   * then starts right after it).
   */
  private async writeRange(db: PoolClient, range: FetchedRange, rollbackTo?: number): Promise<number> {
    const { chain, startBlock, log } = this.options;
    const { from, to } = range;
    const started = performance.now();
    const { events: written, unindexable } = await commitRange(db, range, {
      chain,
      startBlock,
      cursor: this.cursor,
      rollbackTo,
      log,
      rawMaxBytes: this.text.rawMaxBytes,
    });
    this.cursor = to;
    // Known when the range read the block's header (every block of the finality window) or a reward in it.
    this.cursorTime = range.blockTimes.get(to) ?? null;
    this.options.metrics?.indexerEvents.inc({ chain: chain.name }, written);
    if (unindexable.length > 0) this.noteUnindexable(unindexable);
    const writeMs = Math.round(performance.now() - started);
    log.debug(
      { chain: chain.name, from, to, events: written, fetchMs: range.fetchMs, writeMs },
      'indexer: range',
    );
    return written;
  }

  /** Logs, counts and shows (status) events passed without being written. */
  private noteUnindexable(unindexable: readonly UnindexableLog[]): void {
    const { chain, log, metrics } = this.options;
    metrics?.indexerUnindexable.inc({ chain: chain.name }, unindexable.length);
    const latest = unindexable.reduce((a, b) =>
      (b.log.blockNumber - a.log.blockNumber || b.log.logIndex - a.log.logIndex) > 0 ? b : a,
    );
    this.unindexable = {
      events: (this.unindexable?.events ?? 0) + unindexable.length,
      latest: {
        block: latest.log.blockNumber,
        transactionHash: latest.log.transactionHash,
        logIndex: latest.log.logIndex,
        reason: latest.reason,
      },
    };
    for (const { log: event, reason } of unindexable) {
      log.warn(
        {
          chain: chain.name,
          block: event.blockNumber,
          transactionHash: event.transactionHash,
          logIndex: event.logIndex,
          address: event.address,
          reason,
        },
        'indexer: event not indexable, passed (recorded in unindexable_events)',
      );
    }
  }

  /** Caught up: the last recorded block the chain still has must be the one indexed. */
  private async checkLastBlock(db: PoolClient): Promise<void> {
    await checkLastRecordedBlock(db, this.options.chain, Math.min(this.cursor, this.head ?? this.cursor));
  }

  /**
   * Rolls the index back to the last block it shares with the chain and indexes the chain's blocks
   * from there (up to `range` of them), in one transaction. A chain that shares no recorded block
   * (a reorganisation deeper than the window) stops the indexer; but a node restored from a save
   * behind the index (`restoredFromSave`) will never hold what it lost: it is indexed again from the
   * start block.
   */
  private async reorganise(db: PoolClient, range: number, restoredFromSave: boolean): Promise<void> {
    const { chain, log } = this.options;
    const found = await commonAncestor(db, chain, this.cursor);
    if ('fork' in found) {
      if (restoredFromSave) await this.indexAgainFromStart(db, found.fork);
      else this.stopAtDeepFork(found.fork);
      return;
    }
    const { ancestor } = found;
    this.head = await chain.provider.getBlockNumber();
    const finalized = await finalizedBlock(chain, this.head);
    const safeHead = this.head - (chain.confirmations - 1);
    const to = Math.max(ancestor, Math.min(safeHead, ancestor + range));
    // The contracts the chain had up to the ancestor; those of the replaced blocks may be gone.
    const known = await loadKnownContracts(db, chain, { upToBlock: ancestor });
    const fetched = await fetchRange(
      chain,
      known,
      { from: ancestor + 1, to, trackFrom: finalized, finalized },
      this.text,
    );
    const replacedBlocks = this.cursor - ancestor;
    await this.writeRange(db, fetched, ancestor);
    this.known = known;
    this.finalized = finalized;
    log.warn(
      { chain: chain.name, ancestor, replacedBlocks, indexedTo: to },
      'indexer: reorganisation: what the replaced blocks wrote is undone and the chain indexed again from the common ancestor',
    );
    this.options.onReorganised?.(chain, ancestor);
  }

  /** The chain replaced every recorded block: indexing stops until it holds them again (`fork`). */
  private stopAtDeepFork(fork: DeepFork): void {
    const { chain, log } = this.options;
    this.fork = fork;
    log.error(
      { chain: chain.name, ...fork, finalityDepth: finalityDepthOf(chain) },
      'indexer stopped: the chain replaced blocks below the finality window (a reorganisation deeper than it); ' +
        'the index keeps what it had until the chain holds those blocks again (see docs/reorgs.md)',
    );
  }

  /** Empties the chain's index, in one transaction, for the next turns to index it from the start. */
  private async indexAgainFromStart(db: PoolClient, fork: DeepFork): Promise<void> {
    const { chain, log, startBlock } = this.options;
    log.warn(
      { chain: chain.name, ...fork, finalityDepth: finalityDepthOf(chain), startBlock },
      'indexer: the chain restarted from a save older than the finality window; it is indexed again from its start block',
    );
    await inTransaction(db, () => forgetChainIndex(db, chain.chainId, startBlock));
    this.cursor = startBlock - 1;
    this.known = await loadKnownContracts(db, chain);
    this.options.onReorganised?.(chain, this.cursor);
  }

  /** Stopped by a deep fork: resumes once the chain holds the lowest recorded block again. */
  private async awaitForkResolved(db: PoolClient): Promise<void> {
    const { chain, log, pollIntervalMs } = this.options;
    const block = await heldAgain(db, chain);
    if (block !== null) {
      this.fork = null;
      log.info({ chain: chain.name, block }, 'indexer resumed: the chain holds the indexed blocks again');
      return;
    }
    await this.sleep(pollIntervalMs);
  }
}
