import { formatBaseUnits } from '../../chain/amounts';
import { XP_DECIMALS } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import { ALL_XP_TOKEN } from '../../indexer/index-writer';
import type { IndexReader } from '../../indexer/read/index-reader';
import type { LiveSource } from '../../operations/live';
import type { AppsService } from '../apps/apps.service';
import type { ProfileService } from '../profile/profile.service';
import type { UserProfileInfo } from '../profile/profile.types';
import type { LeaderboardInput } from './leaderboard.schema';
import type { LeaderboardEntryInfo } from './leaderboard.types';

export interface LeaderboardServiceDeps {
  chains: ChainRegistry;
  index: IndexReader;
  apps: AppsService;
  profiles: ProfileService;
}

/** What a leaderboard sums: one token's rewards, or the XP of every app (ALL_XP_TOKEN). */
interface RankedToken {
  address: string;
  decimals: number;
}

/**
 * Leaderboards: which token is ranked, and its totals formatted. The ranking itself is the index's
 * (LeaderboardReader: all-time totals, windows, cached days).
 */
export class LeaderboardService {
  constructor(private readonly deps: LeaderboardServiceDeps) {}

  async leaderboard(input: LeaderboardInput): Promise<LeaderboardEntryInfo[]> {
    const chain = this.deps.chains.get(input.chain);
    const token = await this.rankedToken(chain, input);
    const ranked = await this.deps.index.leaderboards.ranking({
      chainId: chain.chainId,
      token: token.address,
      start: input.start,
      end: input.end,
      limit: input.page_size,
      offset: (input.page - 1) * input.page_size,
      // The app too: it is the scope of the entries' profiles.
      scope: input.app_id,
    });
    return ranked.map((row) => ({
      user: row.user,
      xp_rewarded: formatBaseUnits(BigInt(row.total), token.decimals),
    }));
  }

  /** Where a leaderboard subscription hears its changes: the chain's index (ProfileService.indexChangesOf). */
  indexChangesOf(chainName: string): LiveSource {
    return this.deps.profiles.indexChangesOf(chainName);
  }

  /** The profiles of a leaderboard's users, in that order (GraphQL's `profile` of each entry). */
  profilesOf(chain: string, appId: string | undefined, users: readonly string[]): Promise<UserProfileInfo[]> {
    return this.deps.profiles.profilesOn(chain, appId, users);
  }

  /**
   * `token_address` when given (its decimals from the index: an ERC-20 of an app, or a badge with 0;
   * any other token is read as having 0 decimals); else the app's XP token; else XP of every app.
   */
  private async rankedToken(chain: Chain, input: LeaderboardInput): Promise<RankedToken> {
    if (input.app_id) {
      const { xpToken } = await this.deps.apps.requireApp(chain, input.app_id);
      if (!input.token_address) return { address: xpToken, decimals: XP_DECIMALS };
    }
    if (!input.token_address) return { address: ALL_XP_TOKEN, decimals: XP_DECIMALS };
    const decimals = await this.deps.index.decimalsOf(chain.chainId, input.token_address);
    return { address: input.token_address, decimals: decimals ?? 0 };
  }
}
