/**
 * Counts per key (open connections per client, subscriptions per key, tests per account), a key
 * forgotten once its count is back to 0: keys seen once do not stay for good.
 */
export class KeyedCounts<Key> {
  private readonly counts = new Map<Key, number>();

  get(key: Key): number {
    return this.counts.get(key) ?? 0;
  }

  /** Adds `by` (negative to take away) to the key's count; the new count. */
  add(key: Key, by: number): number {
    const count = this.get(key) + by;
    if (count === 0) this.counts.delete(key);
    else this.counts.set(key, count);
    return count;
  }

  /** The keys whose count is not 0, with their counts. */
  entries(): IterableIterator<[Key, number]> {
    return this.counts.entries();
  }
}
