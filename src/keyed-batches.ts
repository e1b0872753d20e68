/**
 * Group commit per key: one call in flight per key at a time, and the items that arrive for the
 * key meanwhile are served together by the next call (up to `maxBatch`, in arrival order). Under
 * load a key's items then share one round trip and one turn of whatever the call locks, instead of
 * queueing for it one by one. `serve` answers one result per item, in order; a throw fails the
 * whole batch.
 */
export class KeyedBatches<Item, Result> {
  /** Per key with a call in flight: the items waiting for the next one. */
  private readonly waiting = new Map<string, Waiting<Item, Result>[]>();

  constructor(
    private readonly maxBatch: number,
    private readonly serve: (items: Item[]) => Promise<Result[]>,
  ) {}

  submit(key: string, item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      const entry = { item, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push(entry);
        return;
      }
      this.waiting.set(key, []);
      void this.drain(key, [entry]);
    });
  }

  private async drain(key: string, first: Waiting<Item, Result>[]): Promise<void> {
    let batch = first;
    while (batch.length > 0) {
      try {
        const results = await this.serve(batch.map((entry) => entry.item));
        batch.forEach((entry, i) => entry.resolve(results[i]));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
      const queue = this.waiting.get(key)!;
      batch = queue.splice(0, this.maxBatch);
      if (batch.length === 0) this.waiting.delete(key);
    }
  }
}

interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}
