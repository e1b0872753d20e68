import DataLoader from 'dataloader';
import { FieldResolver, Resolver, Root } from 'type-graphql';
import { liveValues, LiveOperation } from '../../operations/live';
import { Operation } from '../../operations/operation';
import type { AuthenticatedContext } from '../../operations/request-context';
import { UserProfileInfo } from '../profile/profile.types';
import { leaderboardSchema, type LeaderboardInput } from './leaderboard.schema';
import type { LeaderboardService } from './leaderboard.service';
import { LeaderboardEntryInfo } from './leaderboard.types';

/** What an entry's profile is read from: the leaderboard's chain and app. One per leaderboard read. */
interface EntryScope {
  chain: string;
  appId?: string;
}

@Resolver(() => LeaderboardEntryInfo)
export class LeaderboardResolver {
  /** Kept beside the entries, not in them: REST answers the entries as they are. */
  private readonly scopes = new WeakMap<Readonly<LeaderboardEntryInfo>, EntryScope>();
  /**
   * Per leaderboard read: the entries' profiles asked one by one, loaded in one batch (a
   * subscription's every push reads them anew).
   */
  private readonly loaders = new WeakMap<EntryScope, DataLoader<string, UserProfileInfo>>();

  constructor(private readonly service: LeaderboardService) {}

  @Operation({
    kind: 'query',
    scope: 'read',
    input: leaderboardSchema,
    output: [LeaderboardEntryInfo],
    description:
      'Users by amount rewarded in a window (start..end inclusive, seconds since the epoch), highest first, ties by address',
  })
  async leaderboard(args: LeaderboardInput): Promise<LeaderboardEntryInfo[]> {
    return this.scopedLeaderboard(args);
  }

  @LiveOperation({
    scope: 'read',
    input: leaderboardSchema,
    output: [LeaderboardEntryInfo],
    description:
      'The page the query `leaderboard` answers for these arguments: now, then each time the index changes it (at most once per SUBSCRIPTION_PUSH_INTERVAL_MS)',
  })
  leaderboardChanged(
    args: LeaderboardInput,
    ctx: AuthenticatedContext,
  ): AsyncIterable<LeaderboardEntryInfo[]> {
    return liveValues({
      read: () => this.scopedLeaderboard(args),
      sharedAs: `leaderboard ${JSON.stringify(args)}`,
      ...this.service.indexChangesOf(args.chain),
      log: ctx.log,
    });
  }

  /** The entries, each known with its leaderboard's scope (for `profile`). */
  private async scopedLeaderboard(args: LeaderboardInput): Promise<LeaderboardEntryInfo[]> {
    const entries = await this.service.leaderboard(args);
    const scope = { chain: args.chain, appId: args.app_id };
    for (const entry of entries) this.scopes.set(entry, scope);
    return entries;
  }

  @FieldResolver(() => UserProfileInfo, {
    description:
      "The entry's user profile (of the leaderboard's app, if any); loaded for all entries at once",
  })
  // The entry as the query returned it: typed as a plain object, so type-graphql hands the very
  // object over (for a class type it would make a copy, which the scopes would not know).
  async profile(@Root() entry: Readonly<LeaderboardEntryInfo>): Promise<UserProfileInfo> {
    const scope = this.scopes.get(entry);
    if (!scope) throw new Error('not an entry of a leaderboard of this resolver');
    let loader = this.loaders.get(scope);
    if (!loader) {
      loader = new DataLoader((users: readonly string[]) =>
        this.service.profilesOf(scope.chain, scope.appId, users),
      );
      this.loaders.set(scope, loader);
    }
    return loader.load(entry.user);
  }
}
