/**
 * One load in flight per key: a caller that finds the key's load under way shares its promise
 * instead of starting another. The key is forgotten once its load settles (either way), so the
 * next caller loads again.
 */
export class SingleFlight<K, V> {
  private readonly flights = new Map<K, { startedAt: number; result: Promise<V> }>();

  /**
   * `load()`, or the key's load in flight. `joins` may refuse a load that started too early for
   * this caller (by its start on the monotonic clock, `performance.now()`): a new one then starts
   * and later callers share that one.
   */
  run(key: K, load: () => Promise<V>, joins?: (startedAt: number) => boolean): Promise<V> {
    const flight = this.flights.get(key);
    if (flight && (!joins || joins(flight.startedAt))) return flight.result;
    const started = { startedAt: performance.now(), result: load() };
    this.flights.set(key, started);
    const forget = () => {
      if (this.flights.get(key) === started) this.flights.delete(key);
    };
    started.result.then(forget, forget);
    return started.result;
  }
}

/**
 * `load` started at most once per `intervalMs`: callers within the interval share the promise of
 * the load started in it, whether it is still running or done. A load that hangs is not waited
 * for past the interval: the next caller starts a new one.
 */
export function sharedWithin<T>(intervalMs: number, load: () => Promise<T>): () => Promise<T> {
  let last: { startedAt: number; result: Promise<T> } | null = null;
  return () => {
    const now = Date.now();
    if (!last || now - last.startedAt >= intervalMs) last = { startedAt: now, result: load() };
    return last.result;
  };
}
