import { LRUCache } from 'lru-cache';

/**
 * `compute` with its results remembered per input, at most `max` of them (least recently used
 * first out): for pure functions that hot paths ask the same inputs again and again. A throw is not
 * remembered.
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
