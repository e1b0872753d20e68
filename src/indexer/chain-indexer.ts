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
import type { Logger } from '../logger';
import { applyIndexWrites, prepareIndexWrites, writeIndexEvents, type PreparedWrites } from './index-writer';
import { getLogs } from './logs-client';
import {
  appEventTopics,
  checksum,
  decodeLogs,
  discoverContracts,
  topics,
  type ChainLog,
  type IndexEvent,
  type KnownContracts,
  type TokenKind,
} from './log-decoder';

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

/** A receipt (ethers' TransactionReceipt has this shape) whose logs are ingested. */
export interface ReceiptLogs {
  blockNumber: number;
  logs: readonly {
    address: string;
    topics: readonly string[];
    data: string;
    index: number;
    transactionHash: string;
    blockNumber: number;
  }[];
}

interface FetchedRange {
  from: number;
  to: number;
  events: IndexEvent[];
  blockTimes: Map<number, number>;
  /** The statements writing every event, prepared while the previous range was written. */
  writes: PreparedWrites;
  fetchMs: number;
}

const ADDRESSES_PER_GETLOGS = 500;
const BLOCKS_PER_HEADER_BATCH = 200;
const PROGRESS_LOG_INTERVAL_MS = 5_000;
const MAX_BACKOFF_MS = 30_000;

const hex = (n: number) => `0x${n.toString(16)}`;
const positionKey = (blockNumber: number, logIndex: number) => `${blockNumber}:${logIndex}`;

/** The index's cursor row of a chain, created at `startBlock - 1` if missing, locked for update. */
async function lockCursor(db: PoolClient, chainId: number, startBlock: number): Promise<number> {
  await db.query(
    `INSERT INTO indexer_cursors (chain_id, block_number) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
    [chainId, startBlock - 1],
  );
  const { rows } = await db.query<{ block_number: string }>(
    `SELECT block_number FROM indexer_cursors WHERE chain_id = $1 FOR UPDATE`,
    [chainId],
  );
  return Number(rows[0].block_number);
}

async function inTransaction<T>(db: PoolClient, work: () => Promise<T>): Promise<T> {
  await db.query('BEGIN');
  try {
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The Laurel contracts of a chain already in the index (all, or only those among `addresses`). */
async function loadKnownContracts(
  db: Pool | PoolClient,
  chain: Chain,
  addresses?: string[],
): Promise<KnownContracts> {
  const filter = addresses ? 'AND address = ANY($2)' : '';
  const { rows } = await db.query<{ address: string; kind: string }>(
    `SELECT address, 'app' AS kind FROM indexed_apps WHERE chain_id = $1 ${filter}
     UNION ALL SELECT address, kind::text FROM indexed_tokens WHERE chain_id = $1 ${filter}
     UNION ALL SELECT address, 'badge' FROM indexed_badges WHERE chain_id = $1 ${filter}`,
    addresses ? [chain.chainId, addresses] : [chain.chainId],
  );
  const known: KnownContracts = {
    factory: checksum(chain.factoryAddress),
    apps: new Set(),
    tokens: new Map(),
    badges: new Set(),
  };
  for (const { address, kind } of rows) {
    if (kind === 'app') known.apps.add(address);
    else if (kind === 'badge') known.badges.add(address);
    else known.tokens.set(address, kind as TokenKind);
  }
  return known;
}

/** Timestamps of the blocks holding events that need one (apps, rewards). */
async function blockTimesOf(chain: Chain, events: readonly IndexEvent[], logs: readonly ChainLog[]) {
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

function byChainOrder(a: ChainLog, b: ChainLog): number {
  return a.blockNumber - b.blockNumber || a.logIndex - b.logIndex;
}

/**
 * Ingests one receipt's logs for read-your-writes: idempotent with the indexer (a log of a block the
 * cursor already passed, or of a receipt already ingested, is not counted again). Returns the
 * number of events written and the first day of the rewards among them (Infinity: none).
 */
export interface ReceiptIngested {
  events: number;
  rewardsFromDay: number;
}

export async function ingestReceiptLogs(
  pool: Pool,
  chain: Chain,
  receipt: ReceiptLogs,
  startBlock = 0,
): Promise<ReceiptIngested> {
  const nothing = { events: 0, rewardsFromDay: Infinity };
  const logs: ChainLog[] = receipt.logs.map((log) => ({
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: log.blockNumber,
    logIndex: log.index,
    transactionHash: log.transactionHash,
  }));
  if (logs.length === 0) return nothing;
  const known = await loadKnownContracts(pool, chain, [...new Set(logs.map((log) => checksum(log.address)))]);
  discoverContracts(logs, known);
  const events = decodeLogs(logs, known);
  if (events.length === 0) return nothing;
  const block = (await chain.provider.send('eth_getBlockByNumber', [hex(receipt.blockNumber), false])) as {
    timestamp: string;
  };
  const blockTimes = new Map([[receipt.blockNumber, Number(block.timestamp)]]);
  const db = await pool.connect();
  // A connection lost mid-transaction also fails the query in flight, which is what reports it.
  const onLost = () => undefined;
  db.on('error', onLost);
  try {
    return await inTransaction(db, async () => {
      const cursor = await lockCursor(db, chain.chainId, startBlock);
      if (receipt.blockNumber <= cursor) return nothing;
      const { rows } = await db.query<{ log_index: number }>(
        `INSERT INTO indexer_receipt_logs (chain_id, block_number, log_index)
         SELECT $1, $2, l FROM unnest($3::int[]) AS x(l) ON CONFLICT DO NOTHING RETURNING log_index`,
        [chain.chainId, receipt.blockNumber, events.map((event) => event.logIndex)],
      );
      const fresh = new Set(rows.map((row) => row.log_index));
      const written = events.filter((event) => fresh.has(event.logIndex));
      const { rewardsFromDay } = await writeIndexEvents(db, chain.chainId, written, blockTimes);
      return { events: written.length, rewardsFromDay };
    });
  } finally {
    db.off('error', onLost);
    db.release();
  }
}

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
    const { rows } = await db.query<{ block_number: string }>(
      `SELECT block_number FROM indexer_cursors WHERE chain_id = $1`,
      [this.options.chain.chainId],
    );
    if (rows[0]) this.cursor = Number(rows[0].block_number);
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
            : this.fetchRange(known, from, to);
        prefetched = null;
        const fetched = await fetching;
        if (to < safeHead) {
          const next = { from: to + 1, to: Math.min(safeHead, to + range) };
          prefetched = { ...next, fetch: this.fetchRange(known, next.from, next.to) };
          prefetched.fetch.catch(() => undefined); // a failure surfaces when the range is used
        }
        events = await this.writeRange(db, fetched);
      } catch (error) {
        prefetched = null;
        if (session.lost || isDatabaseConnectionError(error)) throw error;
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

  /** Fetches and decodes the events of blocks `from..to`, adding the contracts they create to `known`. */
  private async fetchRange(known: KnownContracts, from: number, to: number): Promise<FetchedRange> {
    const { chain } = this.options;
    const started = performance.now();
    const factoryLogs = await this.getLogs([known.factory], [topics.appCreated], from, to);
    discoverContracts(factoryLogs, known);
    const appLogs = await this.getLogs([...known.apps], appEventTopics, from, to);
    discoverContracts(appLogs, known);
    // XP tokens are not among them: XP balances follow from Rewarded (see decodeLog).
    const transferring = [...known.tokens].filter(([, kind]) => kind !== 'xp').map(([token]) => token);
    const tokenLogs = await this.getLogs([...transferring, ...known.badges], [topics.transfer], from, to);
    const logs = [...factoryLogs, ...appLogs, ...tokenLogs].sort(byChainOrder);
    const events = decodeLogs(logs, known);
    const blockTimes = await blockTimesOf(chain, events, logs);
    const writes = prepareIndexWrites(chain.chainId, events, blockTimes);
    return { from, to, events, blockTimes, writes, fetchMs: Math.round(performance.now() - started) };
  }

  /** Writes a fetched range and moves the cursor to its end, in one transaction; returns the events written. */
  private async writeRange(db: PoolClient, range: FetchedRange): Promise<number> {
    const { chain, startBlock, log } = this.options;
    const { from, to, events, blockTimes } = range;
    const started = performance.now();
    const written = await inTransaction(db, async () => {
      const cursor = await lockCursor(db, chain.chainId, startBlock);
      if (cursor !== from - 1) throw new Error(`cursor moved to ${cursor} while indexing from ${from}`);
      const { rows } = await db.query<{ block_number: string; log_index: number }>(
        `DELETE FROM indexer_receipt_logs WHERE chain_id = $1 AND block_number <= $2
         RETURNING block_number, log_index`,
        [chain.chainId, to],
      );
      const ingested = new Set(rows.map((row) => positionKey(Number(row.block_number), row.log_index)));
      // Events already ingested from receipts are left out (rarely any: then prepared again).
      const writes = ingested.size
        ? prepareIndexWrites(
            chain.chainId,
            events.filter((event) => !ingested.has(positionKey(event.blockNumber, event.logIndex))),
            blockTimes,
          )
        : range.writes;
      await applyIndexWrites(db, writes);
      await db.query(`UPDATE indexer_cursors SET block_number = $2, updated_at = now() WHERE chain_id = $1`, [
        chain.chainId,
        to,
      ]);
      return writes.events;
    });
    const writeMs = Math.round(performance.now() - started);
    log.debug(
      { chain: chain.name, from, to, events: written, fetchMs: range.fetchMs, writeMs },
      'indexer: range',
    );
    return written;
  }

  private async getLogs(addresses: string[], eventTopics: string[], from: number, to: number) {
    const logs: ChainLog[] = [];
    for (let i = 0; i < addresses.length; i += ADDRESSES_PER_GETLOGS) {
      const raw = await getLogs(this.options.chain, {
        fromBlock: from,
        toBlock: to,
        address: addresses.slice(i, i + ADDRESSES_PER_GETLOGS),
        topics: [eventTopics],
      });
      for (const log of raw) {
        logs.push({
          address: log.address,
          topics: log.topics,
          data: log.data,
          blockNumber: Number(log.blockNumber),
          logIndex: Number(log.logIndex),
          transactionHash: log.transactionHash,
          blockTime: log.blockTimestamp === undefined ? undefined : Number(log.blockTimestamp),
        });
      }
    }
    return logs;
  }
}

function isDatabaseConnectionError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection.*(closed|ended)|Client has encountered a connection error/i.test(
    message,
  );
}
