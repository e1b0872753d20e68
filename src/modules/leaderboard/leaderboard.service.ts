import type { Pool } from 'pg';
import { formatBaseUnits } from '../../chain/amounts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import { ALL_XP_TOKEN } from '../../indexer/index-writer';
import type { IndexDirectory } from '../../indexer/index-directory';
import type { IndexReadCache } from '../../indexer/index-read-cache';
import { LeaderboardDays } from './leaderboard-days';
import { planWindow, type WindowPlan } from './leaderboard-window';
import type { LeaderboardInput } from './leaderboard.schema';
import type { RequestContext } from '../../context';
import { ProfileLoaders } from '../profile/profile.loader';
import type { ProfileService, UserProfile } from '../profile/profile.service';

export interface LeaderboardEntry {
  user: string;
  /** Formatted units of the token (XP: 18 decimals), as a decimal string. */
  xp_rewarded: string;
}

/** What an entry's profile is read from: the leaderboard's chain and app. */
interface EntryScope {
  chain: Chain;
  appId?: string;
}

export interface LeaderboardServiceDeps {
  /** node-postgres directly: these reads are the hot path, and one statement each. */
  pool: Pool;
  chains: ChainRegistry;
  profiles: ProfileService;
  directory: IndexDirectory;
  /** Answers kept until their chain's index changes (the profiles'), and the days windows are ranked from. */
  cache: IndexReadCache;
}

/** What a leaderboard sums: one token's rewards, or the XP of every app (ALL_XP_TOKEN). */
interface RankedToken {
  address: string;
  decimals: number;
}

/**
 * Leaderboards from the index: the rewards of one token (or the XP of every app of the chain) in a
 * window, summed per user, ordered by amount descending then address. Without a window the all-time
 * totals are read through their (amount DESC) index; a window reads per-day totals for its whole
 * days and the completed actions of its partial days, so it never scans every event.
 */
export class LeaderboardService {
  private readonly loaders: ProfileLoaders;
  private readonly days: LeaderboardDays;
  /** Kept beside the entries, not in them: REST answers the entries as they are. */
  private readonly scopes = new WeakMap<LeaderboardEntry, EntryScope>();

  constructor(private readonly deps: LeaderboardServiceDeps) {
    this.loaders = new ProfileLoaders(deps.profiles);
    this.days = new LeaderboardDays(deps.pool, deps.cache);
  }

  async leaderboard(input: LeaderboardInput): Promise<LeaderboardEntry[]> {
    const chain = this.deps.chains.get(input.chain);
    const token = await this.rankedToken(chain, input);
    const limit = input.page_size;
    const offset = (input.page - 1) * input.page_size;
    const scope = { chain, appId: input.app_id };
    const entriesOf = (rows: { user: string; total: bigint | string }[]) =>
      rows.map((row) => {
        const entry = { user: row.user, xp_rewarded: formatBaseUnits(BigInt(row.total), token.decimals) };
        this.scopes.set(entry, scope);
        return entry;
      });
    const windowed = input.start !== undefined || input.end !== undefined;
    const plan = windowed ? planWindow(input.start, input.end) : null;
    // A window of a few days is ranked from cached days: windows rarely repeat, so not kept whole.
    if (plan && this.days.covers(plan)) {
      return entriesOf(await this.days.rank(chain, token.address, plan, limit, offset));
    }
    return this.deps.cache.read(chain.chainId, {
      // The app too: it is the scope of the entries' profiles.
      key: ['leaderboard', input.app_id, token.address, input.start, input.end, limit, offset].join('\n'),
      load: async () =>
        entriesOf(
          plan
            ? await this.windowed(chain, token, plan, limit, offset)
            : (
                await this.deps.pool.query<{ user: string; total: string }>(
                  `SELECT user_address AS "user", amount::text AS total FROM reward_totals
                   WHERE chain_id = $1 AND token_address = $2
                   ORDER BY amount DESC, lower(user_address) LIMIT $3 OFFSET $4`,
                  [chain.chainId, token.address, limit, offset],
                )
              ).rows,
        ),
      sizeOf: (entries) => 100 + entries.length * 100,
    });
  }

  /** An entry's user profile, batched with the other entries of the request. */
  profileOf(entry: LeaderboardEntry, ctx: RequestContext): Promise<UserProfile> {
    const scope = this.scopes.get(entry);
    if (!scope) throw new Error('not an entry of a leaderboard of this service');
    return this.loaders.load(ctx, scope.chain, scope.appId, entry.user);
  }

  private async windowed(
    chain: Chain,
    token: RankedToken,
    plan: WindowPlan,
    limit: number,
    offset: number,
  ): Promise<{ user: string; total: string }[]> {
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const chainId = param(chain.chainId);
    // Only when used (XP of every app over partial days is read by kind): an unused parameter has no type.
    let tokenParam: string | undefined;
    const tokenAddress = () => (tokenParam ??= param(token.address));
    const parts: string[] = [];
    if (plan.days) {
      parts.push(`SELECT user_address, amount FROM reward_daily_totals
        WHERE chain_id = ${chainId} AND token_address = ${tokenAddress()}
          AND day BETWEEN ${param(plan.days.first)}::date AND ${param(plan.days.last)}::date`);
    }
    const rewardsOf = token.address === ALL_XP_TOKEN ? `kind = 'xp'` : `token_address = ${tokenAddress()}`;
    for (const edge of plan.edges) {
      parts.push(`SELECT user_address, amount FROM completed_actions
        WHERE chain_id = ${chainId} AND ${rewardsOf}
          AND block_time >= to_timestamp(${param(edge.from)}::float8)
          AND block_time < to_timestamp(${param(edge.to)}::float8)`);
    }
    if (parts.length === 0) return [];
    const { rows } = await this.deps.pool.query<{ user: string; total: string }>(
      `SELECT user_address AS "user", sum(amount)::text AS total
       FROM (${parts.join(' UNION ALL ')}) AS rewards
       GROUP BY user_address
       ORDER BY sum(amount) DESC, lower(user_address) LIMIT ${param(limit)} OFFSET ${param(offset)}`,
      params,
    );
    return rows;
  }

  /**
   * `token_address` when given (its decimals from the index: an ERC-20 of an app, or a badge with 0;
   * any other token is read as having 0 decimals); else the app's XP token; else XP of every app.
   */
  private async rankedToken(chain: Chain, input: LeaderboardInput): Promise<RankedToken> {
    if (input.app_id) {
      const xpToken = await this.deps.profiles.requireApp(chain, input.app_id);
      if (!input.token_address) return { address: xpToken, decimals: 18 };
    }
    if (!input.token_address) return { address: ALL_XP_TOKEN, decimals: 18 };
    const decimals = await this.deps.directory.decimalsOf(chain, input.token_address);
    return { address: input.token_address, decimals: decimals ?? 0 };
  }
}
