/** Restarting an embedded service (PostgreSQL, anvil) that stopped on its own, with backoff. */
import { setTimeout as sleep } from 'node:timers/promises';
import { doublingDelayMs } from '../backoff';

/** What a supervisor tells the operator: one line per event (stopped, restarted, retrying). */
export type SupervisorReport = (level: 'info' | 'warn' | 'error', message: string) => void;

/** 0.5 s, 1 s, 2 s, ... at most 15 s between attempts. */
export function restartDelayMs(attempt: number): number {
  return doublingDelayMs(attempt, 500, 15_000);
}

/**
 * Calls `start` until it succeeds, waiting restartDelayMs between attempts; gives up (undefined)
 * once `signal` aborts, i.e. when Laurel stops.
 */
export async function restartWithBackoff<T>(options: {
  name: string;
  start: () => Promise<T>;
  signal: AbortSignal;
  report: SupervisorReport;
}): Promise<T | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      await sleep(restartDelayMs(attempt), undefined, { signal: options.signal });
    } catch {
      return undefined;
    }
    try {
      return await options.start();
    } catch (error) {
      if (options.signal.aborted) return undefined;
      options.report(
        'error',
        `${options.name} did not restart (${(error as Error).message}); retrying in ${restartDelayMs(attempt + 1) / 1000} s`,
      );
    }
  }
}
