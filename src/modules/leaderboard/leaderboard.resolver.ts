import DataLoader from 'dataloader';
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { Operation } from '../../operations/operation';
import type { RequestContext } from '../../operations/request-context';
import { UserProfileInfo } from '../profile/profile.types';
import { leaderboardSchema, type LeaderboardInput } from './leaderboard.schema';
import type { LeaderboardService } from './leaderboard.service';
import { LeaderboardEntryInfo } from './leaderboard.types';

/** What an entry's profile is read from: the leaderboard's chain and app. */
interface EntryScope {
  chain: string;
  appId?: string;
}

@Resolver(() => LeaderboardEntryInfo)
export class LeaderboardResolver {
  /** Kept beside the entries, not in them: REST answers the entries as they are. */
  private readonly scopes = new WeakMap<Readonly<LeaderboardEntryInfo>, EntryScope>();
  /** Per request, chain and app: the entries' profiles asked one by one, loaded in one batch. */
  private readonly loaders = new WeakMap<RequestContext, Map<string, DataLoader<string, UserProfileInfo>>>();

  constructor(private readonly service: LeaderboardService) {}

  @Operation({
    kind: 'query',
    input: leaderboardSchema,
    output: [LeaderboardEntryInfo],
    description:
      'Users by amount rewarded in a window (start..end inclusive, seconds since the epoch), highest first, ties by address',
  })
  async leaderboard(args: LeaderboardInput): Promise<LeaderboardEntryInfo[]> {
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
  async profile(
    @Root() entry: Readonly<LeaderboardEntryInfo>,
    @Ctx() ctx: RequestContext,
  ): Promise<UserProfileInfo> {
    const scope = this.scopes.get(entry);
    if (!scope) throw new Error('not an entry of a leaderboard of this resolver');
    let loaders = this.loaders.get(ctx);
    if (!loaders) this.loaders.set(ctx, (loaders = new Map()));
    const key = `${scope.chain}\n${scope.appId ?? ''}`;
    let loader = loaders.get(key);
    if (!loader) {
      loader = new DataLoader((users: readonly string[]) =>
        this.service.profilesOf(scope.chain, scope.appId, users),
      );
      loaders.set(key, loader);
    }
    return loader.load(entry.user);
  }
}
