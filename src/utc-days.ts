/**
 * UTC days, as the index keeps them: numbered since the epoch in memory, YYYY-MM-DD in
 * reward_daily_totals.day.
 */
export const SECONDS_PER_DAY = 86_400;

/** The UTC day of a time in seconds since the epoch. */
export const dayOfTime = (seconds: number) => Math.floor(seconds / SECONDS_PER_DAY);

/** A UTC day as YYYY-MM-DD, and back. */
export const dayString = (day: number) => new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, 10);
export const dayNumber = (day: string) => Date.parse(day) / (SECONDS_PER_DAY * 1000);
