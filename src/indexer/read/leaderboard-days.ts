/**
 * Leaderboard windows ranked in memory from cached days, for windows nobody asked before (clients
 * ask for "the last 7 days" from their clock: every request is a new window, so a cache of whole
 * answers never hits). Three kinds of cached reads, each kept until a change of the index reaches
 * its days (IndexReadCache `rewardsUntilDay`: past days outlive the commits of today's blocks):
 *
 * - one UTC day's per-user totals (reward_daily_totals);
 * - a run of whole days merged and ranked (what "the last 7 days" shares all day long);
 * - one UTC day's rewards in time order (completed_actions), so a partial day at either end of a
 *   window is a binary-searched slice.
 *
 * A window is then its whole days' ranking with the partial days' users added: the entries
 * not rewarded in the partial days keep their order, so only the first offset + limit of them can
 * rank, and of the partial days' users only those whose whole-days total plus their total of the
 * partial days' whole days (an upper bound of what the window gives them) reaches the whole-days
 * ranking's (offset + limit)-th total: those bounds are kept sorted per run of days and partial
 * days, so a request sums the window's rewards of a few users, not every reward of its partial
 * days (at 10,000,000 actions, a day of a busy app holds thousands). The answers equal the SQL
 * path's: the same rows, summed per user, ordered by amount descending then lower-case address.
 */
import type { Queryable } from '../../db/read-replicas';
import { partitionPoint } from '../../partition-point';
import { dayNumber, dayOfTime, dayString, SECONDS_PER_DAY } from '../../utc-days';
import { ALL_XP_TOKEN } from '../index-writer';
import type { IndexReadCache } from './index-read-cache';
import type { WindowPlan } from './leaderboard-window';

/** Windows longer than this (whole days and partial ones) are summed by PostgreSQL instead. */
export const MAX_CACHED_WINDOW_DAYS = 31;

/** A user's total in a window, with the key of its order among equal totals. */
export interface RankedUser {
  user: string;
  /** lower(user): ties are ordered by it, as the SQL path's `ORDER BY ..., lower(user_address)`. */
  order: string;
  total: bigint;
}

/** Whole days of one token, merged: users by total descending, and each user's total. */
interface DaysRanking {
  ranked: RankedUser[];
  totals: Map<string, bigint>;
}

/** One user's rewards of one token in one day, in time order (parallel arrays). */
interface UserDayRewards {
  /** Block times, seconds since the epoch, ascending. */
  times: number[];
  amounts: bigint[];
  total: bigint;
}

/** One day's rewards of one token, per user. */
type DayRewards = Map<string, UserDayRewards>;

/** A user who may rank with the partial days' rewards: at most `bound` in the window. */
interface Bound {
  user: string;
  bound: bigint;
}

/** Rough bytes of a cached row: an address string, a bigint, a map or array slot. */
const BYTES_PER_ROW = 200;

const byRank = (a: RankedUser, b: RankedUser) =>
  a.total > b.total ? -1 : a.total < b.total ? 1 : a.order < b.order ? -1 : a.order > b.order ? 1 : 0;

export class LeaderboardDays {
  constructor(
    private readonly pool: Queryable,
    private readonly cache: IndexReadCache,
  ) {}

  /** Whether `plan` is ranked here: the cache is on and the window spans few enough days. */
  covers(plan: WindowPlan): boolean {
    if (!this.cache.active) return false;
    const days = plan.days ? dayNumber(plan.days.last) - dayNumber(plan.days.first) + 1 : 0;
    return days + plan.edges.length <= MAX_CACHED_WINDOW_DAYS;
  }

  /** Entries offset..offset + limit of the window's ranking. */
  async rank(
    chainId: number,
    token: string,
    plan: WindowPlan,
    limit: number,
    offset: number,
  ): Promise<RankedUser[]> {
    // A partial day is a part of one day, or of two days in a row (a window shorter than a day).
    const edgeDays = plan.edges.flatMap((edge) => {
      const first = dayOfTime(edge.from);
      const last = dayOfTime(edge.to - 1);
      return Array.from({ length: last - first + 1 }, (_, i) => ({ edge, day: first + i }));
    });
    const first = plan.days ? dayNumber(plan.days.first) : null;
    const last = plan.days ? dayNumber(plan.days.last) : null;
    const [days, rewards, bounds] = await Promise.all([
      first !== null && last !== null ? this.daysRanking(chainId, token, first, last) : null,
      Promise.all(edgeDays.map(({ day }) => this.dayRewards(chainId, token, day))),
      this.bounds(chainId, token, first, last, [...new Set(edgeDays.map(({ day }) => day))]),
    ]);
    const wanted = offset + limit;
    const ranked = days?.ranked ?? [];
    // The whole-days ranking's first `wanted` reach at least its `wanted`-th total in the window:
    // anyone whose window total cannot reach it cannot rank.
    const floor = ranked.length >= wanted ? ranked[wanted - 1].total : -1n;
    const users = new Set(ranked.slice(0, wanted).map((entry) => entry.user));
    for (const { user, bound } of bounds) {
      if (bound < floor) break;
      users.add(user);
    }
    const candidates: RankedUser[] = [];
    for (const user of users) {
      const whole = days?.totals.get(user);
      // Only users with rewards in the window are ranked (as rows summed by SQL).
      let rewarded = whole !== undefined;
      let total = whole ?? 0n;
      rewards.forEach((day, d) => {
        const mine = day.get(user);
        if (!mine) return;
        const { from, to } = edgeDays[d].edge;
        const end = firstAtOrAfter(mine.times, to);
        for (let i = firstAtOrAfter(mine.times, from); i < end; i += 1) {
          total += mine.amounts[i];
          rewarded = true;
        }
      });
      if (rewarded) candidates.push({ user, order: user.toLowerCase(), total });
    }
    return candidates.sort(byRank).slice(offset, wanted);
  }

  /**
   * The users of the partial days `edgeDays` with an upper bound of their window total (whole-days
   * total plus their whole partial days), highest first.
   */
  private bounds(
    chainId: number,
    token: string,
    first: number | null,
    last: number | null,
    edgeDays: number[],
  ): Promise<Bound[]> {
    return this.cache.read(chainId, {
      key: `leaderboard-bounds\n${token}\n${first}\n${last}\n${edgeDays.join(',')}`,
      rewardsUntilDay: Math.max(last ?? -Infinity, ...edgeDays),
      reused: true,
      load: async () => {
        const [days, rewards] = await Promise.all([
          first !== null && last !== null ? this.daysRanking(chainId, token, first, last) : null,
          Promise.all(edgeDays.map((day) => this.dayRewards(chainId, token, day))),
        ]);
        const bounds = new Map<string, bigint>();
        for (const day of rewards) {
          for (const [user, { total }] of day) {
            bounds.set(user, (bounds.get(user) ?? days?.totals.get(user) ?? 0n) + total);
          }
        }
        return [...bounds]
          .map(([user, bound]) => ({ user, bound }))
          .sort((a, b) => (a.bound > b.bound ? -1 : a.bound < b.bound ? 1 : 0));
      },
      sizeOf: (bounds) => 100 + bounds.length * BYTES_PER_ROW,
    });
  }

  /** Whole days first..last (day numbers) merged and ranked. */
  private daysRanking(chainId: number, token: string, first: number, last: number): Promise<DaysRanking> {
    return this.cache.read(chainId, {
      key: `leaderboard-days\n${token}\n${first}\n${last}`,
      rewardsUntilDay: last,
      reused: true,
      load: async () => {
        const days = await Promise.all(
          Array.from({ length: last - first + 1 }, (_, i) => this.dayTotals(chainId, token, first + i)),
        );
        const totals = new Map<string, bigint>();
        for (const day of days) {
          for (const [user, amount] of day) totals.set(user, (totals.get(user) ?? 0n) + amount);
        }
        const ranked = [...totals].map(([user, total]) => ({ user, order: user.toLowerCase(), total }));
        return { ranked: ranked.sort(byRank), totals };
      },
      sizeOf: (ranking) => 100 + ranking.ranked.length * 2 * BYTES_PER_ROW,
    });
  }

  /** One day's per-user totals. */
  private dayTotals(chainId: number, token: string, day: number): Promise<Map<string, bigint>> {
    return this.cache.read(chainId, {
      key: `leaderboard-day-totals\n${token}\n${day}`,
      rewardsUntilDay: day,
      reused: true,
      load: async () => {
        const { rows } = await this.pool.query<{ user_address: string; amount: string }>(
          `SELECT user_address, amount::text AS amount FROM reward_daily_totals
           WHERE chain_id = $1 AND token_address = $2 AND day = $3::date`,
          [chainId, token, dayString(day)],
        );
        return new Map(rows.map((row) => [row.user_address, BigInt(row.amount)]));
      },
      sizeOf: (totals) => 100 + totals.size * BYTES_PER_ROW,
    });
  }

  /** One day's rewards in time order. */
  private dayRewards(chainId: number, token: string, day: number): Promise<DayRewards> {
    return this.cache.read(chainId, {
      key: `leaderboard-day-rewards\n${token}\n${day}`,
      rewardsUntilDay: day,
      reused: true,
      load: async () => {
        const allXp = token === ALL_XP_TOKEN;
        const { rows } = await this.pool.query<{ user_address: string; amount: string; at: number }>(
          `SELECT user_address, amount::text AS amount, extract(epoch FROM block_time)::float8 AS at
           FROM completed_actions
           WHERE chain_id = $1 AND block_time >= to_timestamp($2::float8) AND block_time < to_timestamp($3::float8)
             AND ${allXp ? `kind = 'xp'` : 'token_address = $4'}
           ORDER BY block_time`,
          [chainId, day * SECONDS_PER_DAY, (day + 1) * SECONDS_PER_DAY, ...(allXp ? [] : [token])],
        );
        const byUser: DayRewards = new Map();
        for (const row of rows) {
          const amount = BigInt(row.amount);
          const mine = byUser.get(row.user_address);
          if (mine) {
            mine.times.push(row.at);
            mine.amounts.push(amount);
            mine.total += amount;
          } else {
            byUser.set(row.user_address, { times: [row.at], amounts: [amount], total: amount });
          }
        }
        return byUser;
      },
      sizeOf: (rewards) => {
        let rows = 0;
        for (const mine of rewards.values()) rows += mine.times.length;
        return 100 + (rewards.size + rows) * BYTES_PER_ROW;
      },
    });
  }
}

/** The index of the first time >= `time` in ascending `times` (its length when none). */
function firstAtOrAfter(times: readonly number[], time: number): number {
  return partitionPoint(times.length, (i) => times[i] < time);
}
