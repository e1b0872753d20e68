/** One block range of a chain: its Laurel events fetched, decoded and prepared for writing. */
import { blockHeaders, type BlockHeader } from '../chain/block-headers';
import type { Chain } from '../chain/registry';
import { logBlockTime } from '../chain/rpc-pool';
import type { ChainTextLimits } from '../stored-text';
import { blockTimesOf } from './block-times';
import type { TrackedBlock } from './index-store';
import { prepareIndexWrites, type BlockTimes, type PreparedWrites } from './index-writer';
import {
  appEventTopics,
  decodeLogs,
  discoverContracts,
  topics,
  type ChainLog,
  type IndexEvent,
  type KnownContracts,
  type UndecodableLog,
} from './log-decoder';
import { getLogs, type RawLog } from './logs-client';
import { journalOf } from './undo-journal';

/** Addresses asked of eth_getLogs at once. */
const ADDRESSES_PER_GETLOGS = 500;

/** The chain changed while a range was read (its answers disagree): the range is read again. */
export class ChainMovedError extends Error {
  override name = 'ChainMovedError';
}

export interface FetchedRange {
  from: number;
  to: number;
  events: IndexEvent[];
  /** Logs of Laurel contracts that did not decode: recorded as unindexable. */
  undecodable: UndecodableLog[];
  /** The logs the events come from, in chain order. */
  logs: ChainLog[];
  blockTimes: BlockTimes;
  /** The statements writing every event, prepared while the previous range was written. */
  writes: PreparedWrites;
  /**
   * The blocks of the range a reorganisation may still replace (from `trackFrom` on), with their
   * journals, in order: each one's parent is the one before.
   */
  blocks: TrackedBlock[];
  /** The hash of every block of the range that holds Laurel logs or is tracked. */
  blockHashes: ReadonlyMap<number, string>;
  /** The chain's finalized block when the range was read: recorded blocks below it are forgotten. */
  finalized: number;
  fetchMs: number;
}

function byChainOrder(a: ChainLog, b: ChainLog): number {
  return a.blockNumber - b.blockNumber || a.logIndex - b.logIndex;
}

/** eth_getLogs answers carry each log's block hash (RawLog leaves out what the indexer did not read). */
type RawLogInBlock = RawLog & { blockHash?: string };

async function logsOf(
  chain: Chain,
  addresses: string[],
  eventTopics: string[],
  from: number,
  to: number,
  blockHashes: Map<number, string>,
): Promise<ChainLog[]> {
  const logs: ChainLog[] = [];
  for (let i = 0; i < addresses.length; i += ADDRESSES_PER_GETLOGS) {
    const raw: RawLogInBlock[] = await getLogs(chain, {
      fromBlock: from,
      toBlock: to,
      address: addresses.slice(i, i + ADDRESSES_PER_GETLOGS),
      topics: [eventTopics],
    });
    for (const log of raw) {
      const blockNumber = Number(log.blockNumber);
      // Every answer must come from one chain: the headers read first, and each other answer.
      const known = blockHashes.get(blockNumber);
      if (log.blockHash && known && known !== log.blockHash) {
        throw new ChainMovedError(`block ${blockNumber} changed while blocks ${from}..${to} were read`);
      }
      if (log.blockHash) blockHashes.set(blockNumber, log.blockHash);
      logs.push({
        address: log.address,
        topics: log.topics,
        data: log.data,
        blockNumber,
        logIndex: Number(log.logIndex),
        transactionHash: log.transactionHash,
        blockTime: logBlockTime(log),
      });
    }
  }
  return logs;
}

/**
 * No reorganisation replaces a chain's genesis block, so it is not tracked. Nor can its header be
 * trusted to link up: anvil adds a genesis block to its state at every start from a saved state,
 * and answers block 0 with the last one listed in the state it loaded, which need not be the one
 * block 1 extends (the embedded chain after a few restarts).
 */
const FIRST_TRACKED_BLOCK = 1;

/**
 * The headers of blocks `from..to`, which must link up: read before the logs, so that a block
 * replaced after them shows in its logs' block hashes, or in the next range's parent hash.
 */
async function linkedHeaders(chain: Chain, from: number, to: number): Promise<BlockHeader[]> {
  if (from > to) return [];
  const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const headers = await blockHeaders(chain, numbers);
  return numbers.map((n, i) => {
    const header = headers.get(n);
    if (!header) throw new ChainMovedError(`the node has no block ${n} (yet)`);
    if (i > 0 && header.parentHash !== headers.get(n - 1)!.hash) {
      throw new ChainMovedError(
        `block ${n} does not extend block ${n - 1}: the chain changed while it was read`,
      );
    }
    return header;
  });
}

/**
 * The logs of blocks `from..to` that may concern Laurel, in chain order, adding the contracts they
 * create to `known` (the factory's apps first, then the apps' events, then transfers of their
 * tokens and badges).
 */
async function fetchLogs(
  chain: Chain,
  known: KnownContracts,
  from: number,
  to: number,
  blockHashes: Map<number, string>,
): Promise<ChainLog[]> {
  const factoryLogs = await logsOf(chain, [known.factory], [topics.appCreated], from, to, blockHashes);
  discoverContracts(factoryLogs, known);
  const appLogs = await logsOf(chain, [...known.apps], appEventTopics, from, to, blockHashes);
  discoverContracts(appLogs, known);
  // XP tokens are not among them: XP balances follow from Rewarded (see decodeLog).
  const transferring = [...known.tokens].filter(([, kind]) => kind !== 'xp').map(([token]) => token);
  const tokenLogs = await logsOf(
    chain,
    [...transferring, ...known.badges],
    [topics.transfer],
    from,
    to,
    blockHashes,
  );
  return [...factoryLogs, ...appLogs, ...tokenLogs].sort(byChainOrder);
}

/**
 * Fetches and decodes the events of blocks `from..to` (none when `to` < `from`), adding the
 * contracts they create to `known`: the factory's apps first, then the apps' events, then transfers
 * of their tokens and badges. The blocks from `trackFrom` on (the chain's finalized block, also
 * given) are tracked, never the genesis block (FIRST_TRACKED_BLOCK).
 *
 * eth_getLogs is asked `blocksPerRequest` blocks at a time (the node's limit), one request after
 * the other; the range ends early (FetchedRange.to) after the request that took its events to
 * `maxEvents`. Catching up, the indexer writes such a range in one transaction: a user rewarded in
 * several of its requests costs one row update of each sum instead of one per request.
 */
export async function fetchRange(
  chain: Chain,
  known: KnownContracts,
  range: {
    from: number;
    to: number;
    trackFrom: number;
    finalized: number;
    /** Blocks asked of eth_getLogs at once (the whole range by default). */
    blocksPerRequest?: number;
    /** Events after which no further request is made (no limit by default). */
    maxEvents?: number;
  },
  text: ChainTextLimits,
): Promise<FetchedRange> {
  const { from, finalized } = range;
  if (from > range.to) {
    const none = prepareIndexWrites(chain.chainId, [], new Map());
    return {
      from,
      to: range.to,
      events: [],
      undecodable: [],
      logs: [],
      blockTimes: new Map(),
      writes: none,
      blocks: [],
      blockHashes: new Map(),
      finalized,
      fetchMs: 0,
    };
  }
  const started = performance.now();
  const step = range.blocksPerRequest ?? range.to - from + 1;
  const maxEvents = range.maxEvents ?? Infinity;
  const headers: BlockHeader[] = [];
  const blockHashes = new Map<number, string>();
  const logs: ChainLog[] = [];
  const events: IndexEvent[] = [];
  const undecodable: UndecodableLog[] = [];
  let to = from - 1;
  while (to < range.to && events.length < maxEvents) {
    const part = { from: to + 1, to: Math.min(range.to, to + step) };
    const partHeaders = await linkedHeaders(
      chain,
      Math.max(part.from, range.trackFrom, FIRST_TRACKED_BLOCK),
      part.to,
    );
    const previous = headers[headers.length - 1];
    if (previous && partHeaders[0] && partHeaders[0].parentHash !== previous.hash) {
      throw new ChainMovedError(
        `block ${partHeaders[0].number} does not extend block ${previous.number}: the chain changed while it was read`,
      );
    }
    for (const header of partHeaders) {
      headers.push(header);
      blockHashes.set(header.number, header.hash);
    }
    const partLogs = await fetchLogs(chain, known, part.from, part.to, blockHashes);
    for (const log of partLogs) logs.push(log);
    const decoded = decodeLogs(partLogs, known, text);
    for (const event of decoded.events) events.push(event);
    for (const log of decoded.undecodable) undecodable.push(log);
    to = part.to;
  }
  const blockTimes = await blockTimesOf(chain, events, logs, headers);
  const writes = prepareIndexWrites(chain.chainId, events, blockTimes);
  const eventsByBlock = new Map<number, IndexEvent[]>();
  for (const event of events) {
    const inBlock = eventsByBlock.get(event.blockNumber);
    if (inBlock) inBlock.push(event);
    else eventsByBlock.set(event.blockNumber, [event]);
  }
  const blocks = headers.map((header) => ({
    number: header.number,
    hash: header.hash,
    parentHash: header.parentHash,
    undo: journalOf(eventsByBlock.get(header.number) ?? []),
  }));
  return {
    from,
    to,
    events,
    undecodable,
    logs,
    blockTimes,
    writes,
    blocks,
    blockHashes,
    finalized,
    fetchMs: Math.round(performance.now() - started),
  };
}
