/**
 * How a leaderboard window (seconds since the epoch, both ends inclusive) is read: the whole UTC
 * days inside it from the per-day totals, the partial days at its ends from the completed actions.
 */
import { dayString, SECONDS_PER_DAY } from '../../utc-days';

/** 9999-12-31T23:59:59Z: the open end of a window without `end`. */
export const LATEST_SECOND = 253_402_300_799;

export interface WindowPlan {
  /** Whole days (as YYYY-MM-DD, inclusive), or null when the window holds no whole day. */
  days: { first: string; last: string } | null;
  /** Half-open second ranges [from, to) read from the completed actions. */
  edges: { from: number; to: number }[];
}

export function planWindow(start: number | undefined, end: number | undefined): WindowPlan {
  const from = start ?? 0;
  const until = Math.min(end ?? LATEST_SECOND, LATEST_SECOND) + 1; // exclusive
  if (until <= from) return { days: null, edges: [] };
  const firstDay = Math.ceil(from / SECONDS_PER_DAY);
  const lastDay = Math.floor(until / SECONDS_PER_DAY) - 1;
  if (firstDay > lastDay) return { days: null, edges: [{ from, to: until }] };
  const edges = [
    { from, to: firstDay * SECONDS_PER_DAY },
    { from: (lastDay + 1) * SECONDS_PER_DAY, to: until },
  ].filter((edge) => edge.to > edge.from);
  return { days: { first: dayString(firstDay), last: dayString(lastDay) }, edges };
}
