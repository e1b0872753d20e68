/**
 * Which blocks the indexer of one chain fetches next. Each range is written in one transaction, and
 * while it is written the range after it is already being fetched. The width of an eth_getLogs
 * request halves after a range fails and doubles back, up to INDEXER_MAX_BLOCK_RANGE, after one is
 * written.
 */
import type { Chain } from '../chain/registry';
import type { ChainTextLimits } from '../stored-text';
import type { KnownContracts } from './log-decoder';
import { fetchRange, type FetchedRange } from './range-fetcher';

/**
 * Catching up, one transaction writes the events of up to this many eth_getLogs requests, ending
 * after the request that brings it to WRITE_BATCH_EVENTS: the sums (totals, balances) of a user
 * rewarded all along the range are then updated once instead of once per request, the bulk of
 * PostgreSQL's work (`npm run bench:ingest`). The larger the batch, the fewer times each sum is
 * updated, at the cost of memory while catching up (the write and the range fetched ahead of it
 * are held together).
 */
const WRITE_BATCH_REQUESTS = 10;
const WRITE_BATCH_EVENTS = 40_000;

interface Fetching {
  from: number;
  to: number;
  fetch: Promise<FetchedRange>;
}

export class RangePlan {
  /** Blocks asked of eth_getLogs at once. */
  blocksPerRequest: number;
  private ahead: Fetching | null = null;

  constructor(
    private readonly chain: Chain,
    private readonly maxBlockRange: number,
    private readonly text: ChainTextLimits,
  ) {
    this.blocksPerRequest = maxBlockRange;
  }

  /**
   * The range from `from` towards `safeHead`: the one fetched ahead unless it reaches past the
   * blocks now confirmed (the head went back meanwhile), else fetched now. The range after it is
   * then fetched ahead.
   */
  async fetch(
    known: KnownContracts,
    from: number,
    safeHead: number,
    finalized: number,
  ): Promise<FetchedRange> {
    const ahead = this.ahead;
    const fetching =
      ahead?.from === from && ahead.to <= safeHead ? ahead : this.fetchFrom(known, from, safeHead, finalized);
    this.ahead = null;
    const fetched = await fetching.fetch;
    if (fetched.to < safeHead) {
      this.ahead = this.fetchFrom(known, fetched.to + 1, safeHead, finalized);
      this.ahead.fetch.catch(() => undefined); // a failure surfaces when the range is used
    }
    return fetched;
  }

  /** A range was written: wider requests again. */
  written(): void {
    this.blocksPerRequest = Math.min(this.maxBlockRange, this.blocksPerRequest * 2);
  }

  /** A range failed for a reason other than the chain moving: narrower requests. */
  narrow(): void {
    this.blocksPerRequest = Math.max(1, Math.floor(this.blocksPerRequest / 2));
  }

  /** Forgets the range fetched ahead (a failure, or a reorganisation, came in between). */
  dropAhead(): void {
    this.ahead = null;
  }

  /**
   * Up to WRITE_BATCH_REQUESTS requests of `blocksPerRequest` blocks, or fewer once
   * WRITE_BATCH_EVENTS are in (see fetchRange): one transaction for all of them.
   */
  private fetchFrom(known: KnownContracts, start: number, safeHead: number, finalized: number): Fetching {
    const end = Math.min(safeHead, start - 1 + this.blocksPerRequest * WRITE_BATCH_REQUESTS);
    const fetch = fetchRange(
      this.chain,
      known,
      {
        from: start,
        to: end,
        trackFrom: finalized,
        finalized,
        blocksPerRequest: this.blocksPerRequest,
        maxEvents: WRITE_BATCH_EVENTS,
      },
      this.text,
    );
    return { from: start, to: end, fetch };
  }
}
