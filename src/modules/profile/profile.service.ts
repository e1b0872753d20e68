import { formatBaseUnits } from '../../chain/amounts';
import { XP_DECIMALS } from '../../chain/contracts';
import type { ChainRegistry } from '../../chain/registry';
import type { IndexReader, ProfileRow } from '../../indexer/read/index-reader';
import type { LiveSource } from '../../operations/live';
import type { AppsService } from '../apps/apps.service';
import type { ProfileInput } from './profile.schema';
import type { UserProfileInfo } from './profile.types';

export interface ProfileServiceDeps {
  chains: ChainRegistry;
  index: IndexReader;
  apps: AppsService;
  /** Shortest time between two pushes of a subscription read from the index (SUBSCRIPTION_PUSH_INTERVAL_MS). */
  pushIntervalMs: number;
}

/**
 * Profiles from the index: a user's XP balance, badges, completed actions and (for one app) credit
 * and point balances. A list of profiles (GraphQL's leaderboard entries) is read in one statement.
 */
export class ProfileService {
  constructor(private readonly deps: ProfileServiceDeps) {}

  async profile(input: ProfileInput, caller: string): Promise<UserProfileInfo> {
    const chain = this.deps.chains.get(input.chain);
    if (input.app_id) await this.deps.apps.requireApp(chain, input.app_id);
    return profileOf(await this.deps.index.profile(chain.chainId, input.app_id, input.user_id ?? caller));
  }

  /**
   * Where a subscription to what the index says of a chain (a profile, a leaderboard) hears its
   * changes: every commit of the chain's index rows, by any process (a reorganisation's rollback
   * too), read again at most once per SUBSCRIPTION_PUSH_INTERVAL_MS.
   */
  indexChangesOf(chainName: string): LiveSource {
    const { chainId } = this.deps.chains.get(chainName);
    return {
      watch: (wake) => this.deps.index.watchChain(chainId, wake),
      minIntervalMs: this.deps.pushIntervalMs,
    };
  }

  /** The profiles of `users` (checksummed) on the named chain, in that order; of one app when `appId` is given. */
  async profilesOn(
    chainName: string,
    appId: string | undefined,
    users: readonly string[],
  ): Promise<UserProfileInfo[]> {
    const chain = this.deps.chains.get(chainName);
    return (await this.deps.index.profiles(chain.chainId, appId, users)).map(profileOf);
  }
}

function profileOf(row: ProfileRow): UserProfileInfo {
  const profile: UserProfileInfo = {
    user_id: row.user,
    xp_balance: formatBaseUnits(BigInt(row.xp), XP_DECIMALS),
    collected_badges: row.badges.map((badge) => ({
      id: badge.id,
      name: badge.name,
      metadataURI: badge.uri || null,
      metadata: badge.metadata,
    })),
    completed_actions: row.actions,
  };
  // Only a profile of one app has its credit and point balances.
  if (row.credits) {
    profile.credit_balances = row.credits.map((token) => ({
      token_id: token.id,
      token_name: token.name,
      token_balance: token.balance,
      token_balance_formatted: formatBaseUnits(BigInt(token.balance), token.decimals),
      token_symbol: token.symbol,
      token_decimals: token.decimals,
    }));
  }
  return profile;
}
