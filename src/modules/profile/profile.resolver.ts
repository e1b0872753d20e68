import { Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../operations/request-context';
import { liveValues, LiveOperation } from '../../operations/live';
import { Operation } from '../../operations/operation';
import { profileSchema, type ProfileInput } from './profile.schema';
import type { ProfileService } from './profile.service';
import { UserProfileInfo } from './profile.types';

@Resolver()
export class ProfileResolver {
  constructor(private readonly service: ProfileService) {}

  @Operation({
    kind: 'query',
    scope: 'read',
    input: profileSchema,
    output: UserProfileInfo,
    description: "A user's profile on a chain (the caller's by default), across apps or for one app",
  })
  async profile(args: ProfileInput, ctx: AuthenticatedContext): Promise<UserProfileInfo> {
    return this.service.profile(args, ctx.account.address);
  }

  @LiveOperation({
    scope: 'read',
    input: profileSchema,
    output: UserProfileInfo,
    description:
      'The profile the query `profile` answers for these arguments: now, then each time the index changes it (at most once per SUBSCRIPTION_PUSH_INTERVAL_MS)',
  })
  profileChanged(args: ProfileInput, ctx: AuthenticatedContext): AsyncIterable<UserProfileInfo> {
    const caller = ctx.account.address;
    return liveValues({
      read: () => this.service.profile(args, caller),
      sharedAs: `profile ${JSON.stringify({ ...args, user_id: args.user_id ?? caller })}`,
      ...this.service.indexChangesOf(args.chain),
      log: ctx.log,
    });
  }
}
