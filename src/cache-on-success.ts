import { LRUCache } from 'lru-cache';
import { SingleFlight } from './single-flight';

/**
 * `compute` with its results remembered per input, at most `max` of them (least recently used
 * first out): for pure functions that hot paths ask the same inputs again and again. A throw is not
 * remembered. The synchronous form of CacheOnSuccess.
 */
export function remembered<V extends NonNullable<unknown>>(
  compute: (input: string) => V,
  max: number,
): (input: string) => V {
  const results = new LRUCache<string, V>({ max });
  return (input) => {
    let result = results.get(input);
    if (result === undefined) {
      result = compute(input);
      results.set(input, result);
    }
    return result;
  };
}

/**
 * Values kept per key once a load found one, at most `max` of them (least recently used first
 * out): for facts that never change once they exist (a token, an app, a block's time). A load
 * that finds nothing (null or undefined) or throws is not kept, so the next ask loads again;
 * asks of one key at once share one load.
 */
export class CacheOnSuccess<V extends NonNullable<unknown>> {
  private readonly values: LRUCache<string, V>;
  private readonly loads = new SingleFlight<string, V | null>();

  constructor(max: number) {
    this.values = new LRUCache({ max });
  }

  /** The key's value: the one kept, or `load`'s (null when it finds nothing). */
  get<Found extends V | null | undefined>(
    key: string,
    load: () => Promise<Found>,
  ): Promise<V | (Found extends V ? never : null)> {
    const known = this.values.get(key);
    if (known !== undefined) return Promise.resolve(known);
    const loading = this.loads.run(key, async () => {
      const found = (await load()) ?? null;
      if (found !== null) this.values.set(key, found);
      return found;
    });
    return loading as Promise<V | (Found extends V ? never : null)>;
  }

  /** Keeps a value learnt otherwise (with another answer), so that it is not loaded. */
  set(key: string, value: V): void {
    this.values.set(key, value);
  }

  /** Forgets every value (the facts may have changed). */
  clear(): void {
    this.values.clear();
  }
}
