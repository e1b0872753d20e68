/**
 * Runs `work` now, then `intervalMs` after each run ends (runs never overlap), until stopped.
 * `work` handles its own failures: a rejection would end the repetition, unhandled.
 */
export function repeatEvery(intervalMs: number, work: () => Promise<void>): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const run = async () => {
    await work();
    if (!stopped) timer = setTimeout(() => void run(), intervalMs);
  };
  void run();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
