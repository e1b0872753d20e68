import { Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../operations/request-context';
import { Operation } from '../../operations/operation';
import { unsignedTransactionPayload, UnsignedTransactionPayload } from '../../operations/shared-types';
import {
  rewardBadgeSchema,
  rewardBatchSchema,
  rewardCreditSchema,
  rewardPointSchema,
  rewardXPSchema,
  type RewardBadgeInput,
  type RewardBatchInput,
  type RewardCreditInput,
  type RewardPointInput,
  type RewardXPInput,
} from './rewards.schema';
import type { RewardsService } from './rewards.service';

@Resolver()
export class RewardsResolver {
  constructor(private readonly service: RewardsService) {}

  @Operation({
    kind: 'mutation',
    input: rewardBadgeSchema,
    output: UnsignedTransactionPayload,
    description: 'Builds the transaction that rewards badges (by badge_name or badge_id) for an action',
  })
  async rewardBadge(args: RewardBadgeInput, ctx: AuthenticatedContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.rewardBadge(args, ctx.account.address));
  }

  @Operation({
    kind: 'mutation',
    input: rewardCreditSchema,
    output: UnsignedTransactionPayload,
    description:
      "Builds the transaction that transfers (or, with mint, mints) an app's credit token to a user",
  })
  async rewardCredit(
    args: RewardCreditInput,
    ctx: AuthenticatedContext,
  ): Promise<UnsignedTransactionPayload> {
    const transaction = await this.service.rewardCredit(args, ctx.account.address);
    return unsignedTransactionPayload(transaction, { withGas: true });
  }

  @Operation({
    kind: 'mutation',
    input: rewardPointSchema,
    output: UnsignedTransactionPayload,
    description: "Builds the transaction that mints an app's point token to a user for an action",
  })
  async rewardPoint(args: RewardPointInput, ctx: AuthenticatedContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.rewardPoint(args, ctx.account.address));
  }

  @Operation({
    kind: 'mutation',
    input: rewardXPSchema,
    output: UnsignedTransactionPayload,
    description: "Builds the transaction that mints an app's XP to a user for an action",
  })
  async rewardXP(args: RewardXPInput, ctx: AuthenticatedContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.rewardXP(args, ctx.account.address));
  }

  @Operation({
    kind: 'mutation',
    input: rewardBatchSchema,
    output: UnsignedTransactionPayload,
    description:
      'Builds one transaction (App.batch) that makes many rewards of an app, XP, badges, credit and point tokens mixed, in order, all or none: one Rewarded event each. An invalid or reverting item is named by its index',
  })
  async rewardBatch(args: RewardBatchInput, ctx: AuthenticatedContext): Promise<UnsignedTransactionPayload> {
    const transaction = await this.service.rewardBatch(args, ctx.account.address);
    return unsignedTransactionPayload(transaction, { withGas: true });
  }
}
