/**
 * Read-your-writes: a receipt's events go into the index as soon as execute-and-wait has it,
 * before the indexer reaches its block. Idempotent with the indexer: a log of a block the cursor
 * already passed, or of a receipt already ingested, is not counted again (the marks in
 * indexer_receipt_logs tell the indexer which events of a range are in already). The marks keep
 * the receipt's block hash and what undoing the events needs: when the indexer finds another block
 * at that height, the receipt's events are undone (src/indexer/chain-indexer.ts).
 */
import type { Pool } from 'pg';
import type { Chain } from '../chain/registry';
import { inTransaction } from '../db/transaction';
import { DEFAULT_CHAIN_TEXT_LIMITS, type ChainTextLimits } from '../stored-text';
import { dayOfTime } from '../utc-days';
import { needsBlockTime, readBlockTime, type BlockTimeByHash } from './block-times';
import { writeIndexEventsIsolated } from './index-writer';
import {
  loadKnownContracts,
  lockCursor,
  markReceiptLogs,
  positionKey,
  unmarkReceiptLogs,
} from './index-store';
import {
  checksum,
  decodeLogs,
  discoverContracts,
  type ChainLog,
  type IndexEvent,
  type KnownContracts,
} from './log-decoder';
import { journalOf } from './undo-journal';

/** A receipt (ethers' TransactionReceipt has this shape) whose logs are ingested. */
export interface ReceiptLogs {
  blockNumber: number;
  blockHash: string;
  logs: readonly {
    address: string;
    topics: readonly string[];
    data: string;
    index: number;
    transactionHash: string;
    blockNumber: number;
  }[];
}

/** What the receipts' ingestion found and wrote. */
export interface ReceiptIngested {
  /** Events this transaction wrote. */
  events: number;
  /**
   * Events of the receipts that another transaction had written (the indexer, past their block,
   * or a concurrent ingestion): its commit's notification may not have reached this process yet.
   */
  found: number;
  /** The first day of the rewards among both (Infinity: none). */
  rewardsFromDay: number;
  /**
   * Receipts with a log of a contract the index does not know: a Laurel contract created in a
   * block the indexer has not reached looks the same as any other contract, so only the indexer,
   * once past the receipt's block, has all of such a receipt's events.
   */
  unresolved: ReadonlySet<ReceiptLogs>;
}

/**
 * Ingests the events of `receipts` (of one chain) in one transaction: one turn of the chain's
 * cursor lock for all of them (the Indexer batches the receipts of concurrent execute-and-waits).
 * Block times are read by the receipts' block hashes (`blockTimeOf`): the events of a receipt
 * whose block the node no longer has are left out (a reorganisation replaced it).
 */
export async function ingestReceiptLogs(
  pool: Pool,
  chain: Chain,
  receipts: readonly ReceiptLogs[],
  startBlock = 0,
  blockTimeOf: BlockTimeByHash = readBlockTime,
  text: ChainTextLimits = DEFAULT_CHAIN_TEXT_LIMITS,
): Promise<ReceiptIngested> {
  const logs: ChainLog[] = receipts.flatMap((receipt) =>
    receipt.logs.map((log) => ({
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockNumber: log.blockNumber,
      logIndex: log.index,
      transactionHash: log.transactionHash,
    })),
  );
  if (logs.length === 0) return { events: 0, found: 0, rewardsFromDay: Infinity, unresolved: new Set() };
  const blocks = new Map(receipts.map((receipt) => [receipt.blockNumber, receipt.blockHash]));
  // Block times are read while the contracts are looked up: the blocks that need one are those
  // with a log of an event that keeps it (whether the log is a Laurel contract's is known later).
  const timed = new Set(logs.filter(needsBlockTime).map((log) => log.blockNumber));
  const [known, blockTimes] = await Promise.all([
    loadKnownContracts(pool, chain, { addresses: [...new Set(logs.map((log) => checksum(log.address)))] }),
    timesOf(chain, timed, blocks, blockTimeOf),
  ]);
  discoverContracts(logs, known);
  const unresolved = new Set(
    receipts.filter((receipt) => receipt.logs.some((log) => !isKnown(known, checksum(log.address)))),
  );
  const nothing = { events: 0, found: 0, rewardsFromDay: Infinity, unresolved };
  // A log that does not decode is left to the indexer, which records it when it reaches it.
  const events = decodeLogs(logs, known, text).events.filter(
    (event) => !timed.has(event.blockNumber) || blockTimes.has(event.blockNumber),
  );
  if (events.length === 0) return nothing;
  const db = await pool.connect();
  // A connection lost mid-transaction also fails the query in flight, which is what reports it.
  const onLost = () => undefined;
  db.on('error', onLost);
  try {
    return await inTransaction(db, async () => {
      const cursor = await lockCursor(db, chain.chainId, startBlock);
      // Events of blocks the cursor passed are the indexer's; the others are marked in one
      // statement, each log once (two requests waiting for one transaction bring its receipt twice).
      const ahead = [
        ...new Map(
          events
            .filter((event) => event.blockNumber > cursor)
            .map((event) => [positionKey(event.blockNumber, event.logIndex), event]),
        ).values(),
      ];
      const marked =
        ahead.length === 0
          ? new Set<string>()
          : await markReceiptLogs(
              db,
              chain.chainId,
              ahead.map((event) => ({
                blockNumber: event.blockNumber,
                blockHash: blocks.get(event.blockNumber)!,
                logIndex: event.logIndex,
                undo: journalOf([event]),
              })),
            );
      const isMarked = (event: IndexEvent) => marked.has(positionKey(event.blockNumber, event.logIndex));
      // The others another transaction wrote: the indexer's, or a concurrent ingestion's.
      const found = events.filter((event) => !isMarked(event));
      const foundRewardsFromDay = firstRewardDay(found, blockTimes);
      // Block by block, in the receipts' order, as the index writes them.
      const written = [...blocks.keys()].flatMap((number) =>
        ahead.filter((event) => event.blockNumber === number && isMarked(event)),
      );
      if (written.length === 0) {
        return { ...nothing, found: found.length, rewardsFromDay: foundRewardsFromDay };
      }
      // An event whose rows PostgreSQL refuses fails no other receipt of the batch; unmarked, it is
      // left to the indexer, which records it as unindexable.
      const isolated = await writeIndexEventsIsolated(db, chain.chainId, written, blockTimes);
      await unmarkReceiptLogs(
        db,
        chain.chainId,
        isolated.unwritable.map(({ event }) => event),
      );
      return {
        events: isolated.written.reduce((sum, writes) => sum + writes.events, 0),
        found: found.length,
        rewardsFromDay: Math.min(
          foundRewardsFromDay,
          ...isolated.written.map((writes) => writes.rewardsFromDay),
        ),
        unresolved,
      };
    });
  } finally {
    db.off('error', onLost);
    db.release();
  }
}

/** The first UTC day of the rewards among `events` (Infinity: none); their blocks' times are known. */
function firstRewardDay(events: readonly IndexEvent[], blockTimes: ReadonlyMap<number, number>): number {
  return Math.min(
    ...events
      .filter((event) => event.type === 'reward')
      .map((event) => dayOfTime(blockTimes.get(event.blockNumber)!)),
  );
}

/** The times of `numbers`' blocks, read by their hashes in `blocks`; a block the node does not have is left out. */
async function timesOf(
  chain: Chain,
  numbers: ReadonlySet<number>,
  blocks: ReadonlyMap<number, string>,
  blockTimeOf: BlockTimeByHash,
): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  await Promise.all(
    [...numbers].map(async (n) => {
      const time = await blockTimeOf(chain, blocks.get(n)!);
      if (time !== null) times.set(n, time);
    }),
  );
  return times;
}

function isKnown(known: KnownContracts, address: string): boolean {
  return (
    address === known.factory ||
    known.apps.has(address) ||
    known.tokens.has(address) ||
    known.badges.has(address)
  );
}
