/**
 * One fetched block range written into the index in one transaction that also moves the chain's
 * cursor, under a row lock on the cursor: a crash never double-counts or skips, and receipt
 * ingestion (read-your-writes) cannot interleave with it.
 */
import type { PoolClient } from 'pg';
import type { Chain } from '../chain/registry';
import { inTransaction } from '../db/transaction';
import type { Logger } from '../logger';
import { ForkFound } from './chain-forks';
import { undoBlocks } from './index-rollback';
import {
  forgetFinalBlocks,
  lockCursor,
  moveCursor,
  positionKey,
  receiptLogBlocks,
  recordBlocks,
  recordedBlockHash,
  recordUnindexable,
  takeReceiptLogs,
  type TrackedBlock,
  type UnindexableLog,
} from './index-store';
import { writeIndexEventsIsolated, type PreparedWrites } from './index-writer';
import type { IndexEvent } from './log-decoder';
import type { FetchedRange } from './range-fetcher';
import { journalOf } from './undo-journal';

export interface RangeCommitOptions {
  chain: Chain;
  startBlock: number;
  /** The cursor the range starts after: the commit fails when another writer moved it. */
  cursor: number;
  /** What the blocks above this one wrote is undone first (the range then starts right after it). */
  rollbackTo?: number;
  log: Logger;
  /** Bytes kept of the data of an unindexable event (CHAIN_TEXT_RAW_MAX_BYTES). */
  rawMaxBytes: number;
}

/**
 * Writes `range` and moves the cursor to its end; throws ForkFound when its first block does not
 * extend the recorded chain. Returns the events written and those passed without being written.
 */
export async function commitRange(
  db: PoolClient,
  range: FetchedRange,
  options: RangeCommitOptions,
): Promise<{ events: number; unindexable: UnindexableLog[] }> {
  const { chain, startBlock, rollbackTo, log } = options;
  const chainId = chain.chainId;
  const { from, to } = range;
  return inTransaction(db, async () => {
    const cursor = await lockCursor(db, chainId, startBlock);
    if (cursor !== options.cursor) throw new Error(`cursor moved to ${cursor} while indexing from ${from}`);
    const changes: PreparedWrites[] = [];
    if (rollbackTo !== undefined) changes.push(await undoBlocks(db, chainId, { above: rollbackTo }));
    const first = range.blocks[0];
    if (first?.number === from) {
      const parent = await recordedBlockHash(db, chainId, from - 1);
      if (parent !== null && parent !== first.parentHash) throw new ForkFound(from - 1);
    }
    // Receipts ingested ahead of the cursor: kept where the range found their block, undone where
    // it found another block (or no Laurel event at all) at that height.
    const marked = await receiptLogBlocks(db, chainId, to);
    const replaced = marked.filter(
      (block) => block.hash !== null && range.blockHashes.get(block.number) !== block.hash,
    );
    if (replaced.length > 0) {
      const blocks = [...new Set(replaced.map((block) => block.number))];
      log.warn(
        { chain: chain.name, blocks },
        'indexer: receipts ingested from blocks the chain replaced: undone',
      );
      changes.push(await undoBlocks(db, chainId, { blocks }));
    }
    const ingested = await takeReceiptLogs(db, chainId, to);
    // Events already ingested from receipts are left out (rarely any: then prepared again).
    const events = ingested.size
      ? range.events.filter((event) => !ingested.has(positionKey(event.blockNumber, event.logIndex)))
      : range.events;
    // An event whose rows PostgreSQL refuses fails no other, nor the range: it is recorded instead.
    const { written, unwritable } = await writeIndexEventsIsolated(db, chainId, events, range.blockTimes, {
      whole: ingested.size ? undefined : range.writes,
      before: changes,
    });
    const unindexable: UnindexableLog[] = [
      ...range.undecodable,
      ...unwritable.map(({ event, reason }) => ({ log: logOf(range, event), reason })),
    ];
    await recordUnindexable(db, chainId, unindexable, options.rawMaxBytes);
    await recordBlocks(db, chainId, unwritable.length ? withoutEvents(range, unwritable) : range.blocks);
    await forgetFinalBlocks(db, chainId, range.finalized);
    await moveCursor(db, chainId, to);
    return { events: written.reduce((sum, writes) => sum + writes.events, 0), unindexable };
  });
}

/** The log of one of a range's events. */
function logOf(range: FetchedRange, event: IndexEvent): FetchedRange['logs'][number] {
  return range.logs.find((log) => log.blockNumber === event.blockNumber && log.logIndex === event.logIndex)!;
}

/** The range's tracked blocks with journals leaving out `unwritable` events (never written, never undone). */
function withoutEvents(range: FetchedRange, unwritable: readonly { event: IndexEvent }[]): TrackedBlock[] {
  const left = new Set(unwritable.map(({ event }) => event));
  return range.blocks.map((block) => ({
    ...block,
    undo: journalOf(range.events.filter((event) => event.blockNumber === block.number && !left.has(event))),
  }));
}
