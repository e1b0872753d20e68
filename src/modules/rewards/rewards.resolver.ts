import { Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { Operation } from '../../graphql/operation';
import { unsignedTransactionPayload, UnsignedTransactionPayload } from '../../graphql/shared-types';
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

@Resolver()
export class RewardsResolver {
  constructor(private readonly service: RewardsService) {}

  @Operation({
    kind: 'mutation',
    input: rewardBadgeSchema,
    output: UnsignedTransactionPayload,
    description: 'Builds the transaction that rewards badges (by badge_name or badge_id) for an action',
  })
  async rewardBadge(args: RewardBadgeInput, ctx: RequestContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.rewardBadge(args, requireAccount(ctx).address));
  }

  @Operation({
    kind: 'mutation',
    input: rewardCreditSchema,
    output: UnsignedTransactionPayload,
    description:
      "Builds the transaction that transfers (or, with mint, mints) an app's credit token to a user",
  })
  async rewardCredit(args: RewardCreditInput, ctx: RequestContext): Promise<UnsignedTransactionPayload> {
    const transaction = await this.service.rewardCredit(args, requireAccount(ctx).address);
    return unsignedTransactionPayload(transaction, { withGas: true });
  }

  @Operation({
    kind: 'mutation',
    input: rewardPointSchema,
    output: UnsignedTransactionPayload,
    description: "Builds the transaction that mints an app's point token to a user for an action",
  })
  async rewardPoint(args: RewardPointInput, ctx: RequestContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.rewardPoint(args, requireAccount(ctx).address));
  }

  @Operation({
    kind: 'mutation',
    input: rewardXPSchema,
    output: UnsignedTransactionPayload,
    description: "Builds the transaction that mints an app's XP to a user for an action",
  })
  async rewardXP(args: RewardXPInput, ctx: RequestContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.rewardXP(args, requireAccount(ctx).address));
  }
}
