import type { Queryable } from '../../db/read-replicas';
import { ALL_XP_TOKEN } from '../index-writer';
import type { IndexReadCache } from './index-read-cache';
import { LeaderboardDays } from './leaderboard-days';
import { planWindow, type WindowPlan } from './leaderboard-window';

/** A user's total in a ranking, in the token's base units. */
export interface RankedTotal {
  user: string;
  total: bigint | string;
}

export interface RankingRequest {
  chainId: number;
  /** The token ranked, or ALL_XP_TOKEN for the XP of every app. */
  token: string;
  /** The window, seconds since the epoch, both ends inclusive; neither: all time. */
  start?: number;
  end?: number;
  limit: number;
  offset: number;
  /** What else the answer depends on (the app, for the entries' profiles): part of its cache key. */
  scope?: string;
}

/**
 * Leaderboards from the index: the rewards of one token (or the XP of every app of the chain) in a
 * window, summed per user, ordered by amount descending then address. Without a window the all-time
 * totals are read through their (amount DESC) index; a window reads per-day totals for its whole
 * days and the completed actions of its partial days, so it never scans every event. A window of a
 * few days is ranked in memory from cached days (windows rarely repeat, so they are not kept whole).
 */
export class LeaderboardReader {
  private readonly days: LeaderboardDays;

  constructor(
    private readonly pool: Queryable,
    private readonly cache: IndexReadCache,
  ) {
    this.days = new LeaderboardDays(pool, cache);
  }

  async ranking(request: RankingRequest): Promise<RankedTotal[]> {
    const { chainId, token, start, end, limit, offset } = request;
    const plan = start !== undefined || end !== undefined ? planWindow(start, end) : null;
    if (plan && this.days.covers(plan)) return this.days.rank(chainId, token, plan, limit, offset);
    return this.cache.read(chainId, {
      key: ['leaderboard', request.scope, token, start, end, limit, offset].join('\n'),
      load: () => (plan ? this.windowed(chainId, token, plan, limit, offset) : this.allTime(request)),
      sizeOf: (entries) => 100 + entries.length * 100,
    });
  }

  private async allTime({ chainId, token, limit, offset }: RankingRequest): Promise<RankedTotal[]> {
    const { rows } = await this.pool.query<{ user: string; total: string }>(
      `SELECT user_address AS "user", amount::text AS total FROM reward_totals
       WHERE chain_id = $1 AND token_address = $2
       ORDER BY amount DESC, lower(user_address) LIMIT $3 OFFSET $4`,
      [chainId, token, limit, offset],
    );
    return rows;
  }

  private async windowed(
    chainId: number,
    token: string,
    plan: WindowPlan,
    limit: number,
    offset: number,
  ): Promise<RankedTotal[]> {
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const chain = param(chainId);
    // Only when used (XP of every app over partial days is read by kind): an unused parameter has no type.
    let tokenParam: string | undefined;
    const tokenAddress = () => (tokenParam ??= param(token));
    const parts: string[] = [];
    if (plan.days) {
      parts.push(`SELECT user_address, amount FROM reward_daily_totals
        WHERE chain_id = ${chain} AND token_address = ${tokenAddress()}
          AND day BETWEEN ${param(plan.days.first)}::date AND ${param(plan.days.last)}::date`);
    }
    const rewardsOf = token === ALL_XP_TOKEN ? `kind = 'xp'` : `token_address = ${tokenAddress()}`;
    for (const edge of plan.edges) {
      parts.push(`SELECT user_address, amount FROM completed_actions
        WHERE chain_id = ${chain} AND ${rewardsOf}
          AND block_time >= to_timestamp(${param(edge.from)}::float8)
          AND block_time < to_timestamp(${param(edge.to)}::float8)`);
    }
    if (parts.length === 0) return [];
    const { rows } = await this.pool.query<{ user: string; total: string }>(
      `SELECT user_address AS "user", sum(amount)::text AS total
       FROM (${parts.join(' UNION ALL ')}) AS rewards
       GROUP BY user_address
       ORDER BY sum(amount) DESC, lower(user_address) LIMIT ${param(limit)} OFFSET ${param(offset)}`,
      params,
    );
    return rows;
  }
}
