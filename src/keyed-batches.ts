/** How a key's items are gathered into calls. */
export interface BatchOptions<Item> {
  /**
   * Each call waits for the end of the event-loop turn (setImmediate) and takes the items the
   * turn's callbacks asked for too; otherwise a key's first item is served at once.
   */
  gatherTurn?: boolean;
  /**
   * A filter made for each call: an item it refuses waits, in its place, for a later call (two
   * writes of one row that one statement would count once). The first item waiting is served
   * whatever the filter says.
   */
  admit?: () => (item: Item) => boolean;
}

/**
 * Group commit per key: one call in flight per key at a time, and the items that arrive for the
 * key meanwhile are served together by the next call (up to `maxBatch`, in arrival order). Under
 * load a key's items then share one round trip and one turn of whatever the call locks, instead of
 * queueing for it one by one. `serve` answers one result per item, in order; a throw fails the
 * whole batch.
 */
export class KeyedBatches<Item, Result> {
  /** Per key with a call in flight or coming: the items waiting for a call. */
  private readonly waiting = new Map<string, Waiting<Item, Result>[]>();

  constructor(
    private readonly maxBatch: number,
    private readonly serve: (items: Item[]) => Promise<Result[]>,
    private readonly options: BatchOptions<Item> = {},
  ) {}

  submit(key: string, item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      const entry = { item, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push(entry);
        return;
      }
      const fresh = [entry];
      this.waiting.set(key, fresh);
      void this.drain(key, fresh);
    });
  }

  private async drain(key: string, queue: Waiting<Item, Result>[]): Promise<void> {
    for (;;) {
      if (this.options.gatherTurn) await new Promise((resolve) => setImmediate(resolve));
      const batch = this.take(queue);
      if (batch.length === 0) {
        this.waiting.delete(key);
        return;
      }
      try {
        const results = await this.serve(batch.map((entry) => entry.item));
        batch.forEach((entry, i) => entry.resolve(results[i]));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
  }

  /** The next call's items, taken out of the queue. */
  private take(queue: Waiting<Item, Result>[]): Waiting<Item, Result>[] {
    if (!this.options.admit) return queue.splice(0, this.maxBatch);
    const admits = this.options.admit();
    const taken: Waiting<Item, Result>[] = [];
    const left: Waiting<Item, Result>[] = [];
    for (const entry of queue) {
      const admitted = admits(entry.item);
      // The first item waiting is always served, so a queue never stalls on a filter.
      if (taken.length < this.maxBatch && (admitted || taken.length === 0)) taken.push(entry);
      else left.push(entry);
    }
    queue.length = 0;
    for (const entry of left) queue.push(entry);
    return taken;
  }
}

interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}
