import { Args, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { UnsignedTransactionPayload } from '../../graphql/shared-types';
import { ValidateArgs } from '../../graphql/validate-args';
import {
  rewardBadgeSchema,
  rewardCreditSchema,
  rewardPointSchema,
  rewardXPSchema,
  type RewardBadgeInput,
  type RewardCreditInput,
  type RewardPointInput,
  type RewardXPInput,
} from './rewards.schema';
import type { RewardsService } from './rewards.service';
import { RewardBadgeArgs, RewardCreditArgs, RewardPointArgs, RewardXPArgs } from './rewards.types';

@Resolver()
export class RewardsResolver {
  constructor(private readonly service: RewardsService) {}

  @Authorized()
  @ValidateArgs(rewardBadgeSchema)
  @Mutation(() => UnsignedTransactionPayload, {
    description: 'Builds the transaction that rewards badges (by badge_name or badge_id) for an action',
  })
  async rewardBadge(
    @Args(() => RewardBadgeArgs) args: RewardBadgeInput,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsignedTransactionPayload> {
    return { unsignedTransaction: await this.service.rewardBadge(args, requireAccount(ctx).address) };
  }

  @Authorized()
  @ValidateArgs(rewardCreditSchema)
  @Mutation(() => UnsignedTransactionPayload, {
    description:
      "Builds the transaction that transfers (or, with mint, mints) an app's credit token to a user",
  })
  async rewardCredit(
    @Args(() => RewardCreditArgs) args: RewardCreditInput,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsignedTransactionPayload> {
    return { unsignedTransaction: await this.service.rewardCredit(args, requireAccount(ctx).address) };
  }

  @Authorized()
  @ValidateArgs(rewardPointSchema)
  @Mutation(() => UnsignedTransactionPayload, {
    description: "Builds the transaction that mints an app's point token to a user for an action",
  })
  async rewardPoint(
    @Args(() => RewardPointArgs) args: RewardPointInput,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsignedTransactionPayload> {
    return { unsignedTransaction: await this.service.rewardPoint(args, requireAccount(ctx).address) };
  }

  @Authorized()
  @ValidateArgs(rewardXPSchema)
  @Mutation(() => UnsignedTransactionPayload, {
    description: "Builds the transaction that mints an app's XP to a user for an action",
  })
  async rewardXP(
    @Args(() => RewardXPArgs) args: RewardXPInput,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsignedTransactionPayload> {
    return { unsignedTransaction: await this.service.rewardXP(args, requireAccount(ctx).address) };
  }
}
