/**
 * The indexer of one chain: follows the events of Laurel's contracts into the index tables.
 *
 * - Reorganisations: only blocks with the chain's `confirmations` are indexed (the head minus
 *   confirmations - 1), the same depth execute-and-wait waits for; a reorganisation deeper than
 *   that is not handled.
 * - Each block range is written in one transaction that also moves the chain's cursor, under a
 *   row lock on the cursor, so a crash never double-counts or skips and receipt ingestion
 *   (read-your-writes) cannot interleave with it.
 * - One active indexer per chain across processes: a session advisory lock; the others stand by
 *   and retry, taking over when the holder's connection ends.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Pool, PoolClient } from 'pg';
import type { Chain } from '../chain/registry';
import { isConnectionLost } from '../db/availability';
import { inTransaction } from '../db/transaction';
import type { Logger } from '../logger';
import { applyIndexWrites, prepareIndexWrites } from './index-writer';
import {
  loadKnownContracts,
  lockCursor,
  moveCursor,
  positionKey,
  readCursor,
  takeReceiptLogs,
} from './index-store';
import { fetchRange, type FetchedRange } from './range-fetcher';

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

  constructor(private readonly options: ChainIndexerOptions) {}

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
    this.head = await this.options.chain.provider.getBlockNumber();
  }

  /** Indexes ranges until stopped; throws when the database connection fails. */
  private async follow(db: PoolClient, session: { lost: boolean }): Promise<void> {
    const { chain, log, maxBlockRange, pollIntervalMs, startBlock } = this.options;
    this.cursor = await inTransaction(db, () => lockCursor(db, chain.chainId, startBlock));
    const known = await loadKnownContracts(db, chain);
    let range = maxBlockRange;
    let failures = 0;
    let catchUp: { since: number; fromCursor: number; events: number; lastLog: number } | null = null;
    // While a range is written, the next one is already being fetched.
    let prefetched: { from: number; to: number; fetch: Promise<FetchedRange> } | null = null;

    while (!this.stopped) {
      if (session.lost) throw new Error('database connection lost');
      let safeHead: number;
      try {
        this.head = await chain.provider.getBlockNumber();
        safeHead = this.head - (chain.confirmations - 1);
      } catch (error) {
        failures += 1;
        log.warn({ chain: chain.name, err: error }, 'indexer: head unavailable');
        await this.sleep(Math.min(MAX_BACKOFF_MS, 250 * 2 ** failures));
        continue;
      }
      if (this.cursor >= safeHead) {
        if (catchUp) {
          log.info({ chain: chain.name, block: this.cursor }, 'indexer caught up');
          catchUp = null;
        }
        await this.sleep(pollIntervalMs);
        continue;
      }
      const from = this.cursor + 1;
      const to = Math.min(safeHead, this.cursor + range);
      let events: number;
      try {
        const fetching =
          prefetched?.from === from && prefetched.to === to
            ? prefetched.fetch
            : fetchRange(chain, known, from, to);
        prefetched = null;
        const fetched = await fetching;
        if (to < safeHead) {
          const next = { from: to + 1, to: Math.min(safeHead, to + range) };
          prefetched = { ...next, fetch: fetchRange(chain, known, next.from, next.to) };
          prefetched.fetch.catch(() => undefined); // a failure surfaces when the range is used
        }
        events = await this.writeRange(db, fetched);
      } catch (error) {
        prefetched = null;
        if (session.lost || isConnectionLost(error)) throw error;
        failures += 1;
        range = Math.max(1, Math.floor(range / 2));
        log.warn({ chain: chain.name, from, to, err: error, nextRange: range }, 'indexer: range failed');
        await this.sleep(Math.min(MAX_BACKOFF_MS, 250 * 2 ** failures));
        continue;
      }
      failures = 0;
      range = Math.min(maxBlockRange, range * 2);
      this.cursor = to;

      const now = Date.now();
      if (!catchUp && safeHead - to > range)
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
    }
  }

  /** Writes a fetched range and moves the cursor to its end, in one transaction; returns the events written. */
  private async writeRange(db: PoolClient, range: FetchedRange): Promise<number> {
    const { chain, startBlock, log } = this.options;
    const { from, to, events, blockTimes } = range;
    const started = performance.now();
    const written = await inTransaction(db, async () => {
      const cursor = await lockCursor(db, chain.chainId, startBlock);
      if (cursor !== from - 1) throw new Error(`cursor moved to ${cursor} while indexing from ${from}`);
      const ingested = await takeReceiptLogs(db, chain.chainId, to);
      // Events already ingested from receipts are left out (rarely any: then prepared again).
      const writes = ingested.size
        ? prepareIndexWrites(
            chain.chainId,
            events.filter((event) => !ingested.has(positionKey(event.blockNumber, event.logIndex))),
            blockTimes,
          )
        : range.writes;
      await applyIndexWrites(db, writes);
      await moveCursor(db, chain.chainId, to);
      return writes.events;
    });
    const writeMs = Math.round(performance.now() - started);
    log.debug(
      { chain: chain.name, from, to, events: written, fetchMs: range.fetchMs, writeMs },
      'indexer: range',
    );
    return written;
  }
}
