import v8 from 'node:v8';

/**
 * How far V8 lets the heap grow past what survived the last full collection before it collects
 * again: 2×. Laurel keeps little alive (a few tens of MB under load, plus the read cache) but
 * makes much short-lived garbage per request. V8's default (a factor of up to 4) lets RSS grow
 * well past what a steady live heap needs (`npm run bench:build`); a smaller factor collects the
 * whole heap so often that its pauses become the slowest answers (`npm run bench:read`'s p99).
 * Current figures: docs/benchmarks.md.
 */
const HEAP_GROWING_PERCENT = 100;

/** Applies HEAP_GROWING_PERCENT unless the process was started with its own value of the flag. */
export function limitHeapGrowth(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((flag) =>
    /--heap[-_]growing[-_]percent/.test(flag),
  );
  if (!given) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
