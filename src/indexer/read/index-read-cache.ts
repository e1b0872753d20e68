/**
 * Answers and partial results read from the index (profiles, leaderboards, one day's rewards), kept
 * in memory until the index rows they were read from change. Bounded by an estimate of their size
 * (least recently used go first).
 *
 * Each chain has a generation, raised by every change of its index (IndexChanges), which names the
 * first UTC day whose reward rows it changed. A read is stored with the generation seen before its
 * query started, and is dropped once a later change reaches what it depends on: any change for
 * most reads, only a change of rewards on or before its `rewardsUntilDay` for reads of past days'
 * rewards (so the leaderboard's past days outlive the commits of today's blocks). A read whose
 * query raced a commit is therefore never answered again. Nothing is cached while commits of other
 * processes cannot be heard (no LISTEN session).
 *
 * An answer is kept from the second time its key is read (within the last KEYS_REMEMBERED_PER_MB ×
 * MB keys): most profiles are asked for once, and keeping each of them would only push out the
 * answers asked for again and leave the garbage collector more to do. Reads marked `reused` (parts
 * many answers are made of) are kept from the first.
 */
import { LRUCache } from 'lru-cache';
import { partitionPoint } from '../../partition-point';
import { SingleFlight } from '../../single-flight';
import type { LaurelMetrics } from '../../metrics';
import type { IndexChange, IndexChanges } from '../index-changes';

export interface CachedRead<T> {
  /** What the answer depends on besides the chain (every input of the query). */
  key: string;
  load: () => Promise<T>;
  /** An estimate of the answer's size in bytes (its JSON is a fair one). */
  sizeOf: (value: T) => number;
  /**
   * Set when the read depends on nothing but reward rows (completed actions, reward totals) of UTC
   * days up to this one (days since the epoch): changes of later days leave it cached.
   */
  rewardsUntilDay?: number;
  /** Read again by other requests as a rule: kept from its first read (else from its second). */
  reused?: boolean;
}

/** Keys remembered (for their second read) per MB of the cache: a key is ~100 bytes. */
const KEYS_REMEMBERED_PER_MB = 1_000;

interface Stored {
  value: unknown;
  epoch: number;
  generation: number;
}

/** A change of a chain's index: what was stored before `generation` and reads day `fromDay` or later is stale. */
interface Cut {
  generation: number;
  fromDay: number;
}

class ChainGenerations {
  generation = 0;
  /**
   * The changes still able to drop something, by generation; their `fromDay` rises strictly (a
   * later change from an earlier or the same day drops all an earlier one would).
   */
  private readonly cuts: Cut[] = [];

  changed(fromDay: number): void {
    this.generation += 1;
    while (this.cuts.length > 0 && this.cuts[this.cuts.length - 1].fromDay >= fromDay) this.cuts.pop();
    this.cuts.push({ generation: this.generation, fromDay });
  }

  /** Whether a read stored at `generation`, of reward rows up to `untilDay`, is still current. */
  current(generation: number, untilDay: number): boolean {
    if (generation === this.generation) return true;
    // The first change after `generation` has the earliest day of all the changes since.
    const first = partitionPoint(this.cuts.length, (i) => this.cuts[i].generation <= generation);
    return first === this.cuts.length || this.cuts[first].fromDay > untilDay;
  }
}

export class IndexReadCache {
  private readonly answers: LRUCache<string, Stored> | null;
  private readonly loads = new SingleFlight<string, unknown>();
  private readonly chains = new Map<number, ChainGenerations>();
  /** Keys read once lately (two generations, the older dropped when the newer is full). */
  private seen = new Set<string>();
  private seenBefore = new Set<string>();
  private readonly keysRemembered: number;
  /** Raised when changes of every chain may have been missed. */
  private epoch = 0;

  /** `maxBytes` 0: nothing is cached. */
  constructor(
    private readonly changes: IndexChanges,
    maxBytes: number,
    private readonly metrics: LaurelMetrics | null = null,
  ) {
    this.answers = maxBytes > 0 ? new LRUCache({ maxSize: maxBytes }) : null;
    const answers = this.answers;
    if (metrics && answers) {
      metrics.observe(metrics.readCacheBytes, () => [{ labels: {}, value: answers.calculatedSize }]);
    }
    this.keysRemembered = Math.max(100, Math.round((maxBytes / 1024 / 1024) * KEYS_REMEMBERED_PER_MB));
    changes.subscribe((change) => this.changed(change));
  }

  /** Whether reads are cached now (memory is given, and other processes' commits are heard). */
  get active(): boolean {
    return this.answers !== null && this.changes.listening;
  }

  async read<T>(chainId: number, read: CachedRead<T>): Promise<T> {
    const answers = this.answers;
    if (!answers || !this.changes.listening) return read.load();
    const chain = this.chainOf(chainId);
    const key = `${chainId}\n${read.key}`;
    const untilDay = read.rewardsUntilDay ?? Infinity;
    const cached = answers.get(key);
    if (cached && cached.epoch === this.epoch && chain.current(cached.generation, untilDay)) {
      this.metrics?.readCacheRequests.inc({ result: 'hit' });
      return cached.value as T;
    }
    this.metrics?.readCacheRequests.inc({ result: 'miss' });
    // Identical reads arriving together (at the same generation) share one query.
    const epoch = this.epoch;
    const generation = chain.generation;
    const loading = this.loads.run(`${epoch}:${generation}:${key}`, () =>
      read.load().then((value) => {
        const size = read.sizeOf(value);
        const stored = answers.peek(key);
        // Not over a read of a later generation that finished first.
        const newer = stored && stored.epoch === epoch && stored.generation > generation;
        if ((read.reused || this.readBefore(key)) && size <= answers.maxSize && !newer) {
          answers.set(key, { value, epoch, generation }, { size: Math.max(1, size) });
        }
        return value;
      }),
    );
    return loading as Promise<T>;
  }

  /** Whether `key` was read lately (and remembers it, when not). */
  private readBefore(key: string): boolean {
    if (this.seen.has(key) || this.seenBefore.has(key)) return true;
    if (this.seen.size >= this.keysRemembered) {
      this.seenBefore = this.seen;
      this.seen = new Set();
    }
    this.seen.add(key);
    return false;
  }

  private chainOf(chainId: number): ChainGenerations {
    let chain = this.chains.get(chainId);
    if (!chain) this.chains.set(chainId, (chain = new ChainGenerations()));
    return chain;
  }

  private changed(change: IndexChange | null): void {
    if (change === null) {
      this.epoch += 1;
      this.answers?.clear();
    } else {
      this.chainOf(change.chainId).changed(change.rewardsFromDay);
    }
  }
}
