import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../context';
import { Operation } from '../../graphql/operation';
import { UserProfileInfo } from '../profile/profile.types';
import { leaderboardSchema, type LeaderboardInput } from './leaderboard.schema';
import type { LeaderboardService, LeaderboardEntry } from './leaderboard.service';
import { LeaderboardEntryInfo } from './leaderboard.types';

@Resolver(() => LeaderboardEntryInfo)
export class LeaderboardResolver {
  constructor(private readonly service: LeaderboardService) {}

  @Operation({
    kind: 'query',
    input: leaderboardSchema,
    output: [LeaderboardEntryInfo],
    description:
      'Users by amount rewarded in a window (start..end inclusive, seconds since the epoch), highest first, ties by address',
  })
  async leaderboard(args: LeaderboardInput): Promise<LeaderboardEntry[]> {
    return this.service.leaderboard(args);
  }

  @FieldResolver(() => UserProfileInfo, {
    description:
      "The entry's user profile (of the leaderboard's app, if any); loaded for all entries at once",
  })
  async profile(@Root() entry: LeaderboardEntry, @Ctx() ctx: RequestContext): Promise<UserProfileInfo> {
    return this.service.profileOf(entry, ctx);
  }
}
