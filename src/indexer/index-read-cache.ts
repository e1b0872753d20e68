/**
 * Answers read from the index (profiles, leaderboards), kept in memory until the index of their
 * chain changes. Bounded by an estimate of their size (least recently used go first).
 *
 * Each chain has a generation, raised by every change of its index (IndexChanges); an answer is
 * stored under the generation seen before its query started, so one whose query raced a commit is
 * stored where nobody looks any more. Nothing is cached while commits of other processes cannot be
 * heard (no LISTEN session).
 */
import { LRUCache } from 'lru-cache';
import type { IndexChanges } from './index-changes';

export interface CachedRead<T> {
  /** What the answer depends on besides the chain (every input of the query). */
  key: string;
  load: () => Promise<T>;
  /** An estimate of the answer's size in bytes (its JSON is a fair one). */
  sizeOf: (value: T) => number;
}

export class IndexReadCache {
  private readonly answers: LRUCache<string, { value: unknown }> | null;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly generations = new Map<number, number>();
  /** Raised when changes of every chain may have been missed. */
  private epoch = 0;

  /** `maxBytes` 0: nothing is cached. */
  constructor(
    private readonly changes: IndexChanges,
    maxBytes: number,
  ) {
    this.answers = maxBytes > 0 ? new LRUCache({ maxSize: maxBytes }) : null;
    changes.subscribe((chainId) => {
      if (chainId === null) this.epoch += 1;
      else this.generations.set(chainId, (this.generations.get(chainId) ?? 0) + 1);
    });
  }

  async read<T>(chainId: number, read: CachedRead<T>): Promise<T> {
    const answers = this.answers;
    if (!answers || !this.changes.listening) return read.load();
    const key = `${this.epoch}:${chainId}:${this.generations.get(chainId) ?? 0}\n${read.key}`;
    const cached = answers.get(key);
    if (cached) return cached.value as T;
    // Identical reads arriving together share one query.
    const pending = this.inFlight.get(key);
    if (pending) return pending as Promise<T>;
    const loading = read.load().then(
      (value) => {
        this.inFlight.delete(key);
        const size = read.sizeOf(value);
        if (size <= answers.maxSize) answers.set(key, { value }, { size: Math.max(1, size) });
        return value;
      },
      (error: unknown) => {
        this.inFlight.delete(key);
        throw error;
      },
    );
    this.inFlight.set(key, loading);
    return loading;
  }
}
