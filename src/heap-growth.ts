import v8 from 'node:v8';

/**
 * How far V8 lets the heap grow past what survived the last full collection before it collects
 * again: 2×. Laurel keeps little alive (about 45 MB under load, plus the read cache) but makes
 * much short-lived garbage per request. With V8's default (a factor of up to 4) the process's RSS
 * rose to 300 MB under `npm run bench:build` with a steady live heap; at 2× it peaks at 224–229
 * MB (4,000 builds a phase). 1.5× kept it under 200 MB but collected the whole heap every half
 * second under `npm run bench:read`, and those pauses (up to 39 ms) were the slowest percent of
 * profile answers (p99 30–33 ms at 1.5×, 21–26 ms at 2×).
 */
const HEAP_GROWING_PERCENT = 100;

/** Applies HEAP_GROWING_PERCENT unless the process was started with its own value of the flag. */
export function limitHeapGrowth(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((flag) =>
    /--heap[-_]growing[-_]percent/.test(flag),
  );
  if (!given) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
