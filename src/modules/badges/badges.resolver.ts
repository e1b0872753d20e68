import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { UnsignedTransactionPayload } from '../../graphql/shared-types';
import { ValidateArgs } from '../../graphql/validate-args';
import {
  createBadgeSchema,
  listBadgesSchema,
  type CreateBadgeInput,
  type ListBadgesInput,
} from './badges.schema';
import type { BadgesService } from './badges.service';
import { BadgeInfo, CreateBadgeArgs, ListBadgesArgs } from './badges.types';

@Resolver()
export class BadgesResolver {
  constructor(private readonly service: BadgesService) {}

  @Authorized()
  @ValidateArgs(createBadgeSchema)
  @Mutation(() => UnsignedTransactionPayload, {
    description: 'Builds the transaction that creates a badge (ERC-721 collection) of an app',
  })
  async createBadge(
    @Args(() => CreateBadgeArgs) args: CreateBadgeInput,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsignedTransactionPayload> {
    return { unsignedTransaction: await this.service.createBadge(args, requireAccount(ctx).address) };
  }

  @Authorized()
  @ValidateArgs(listBadgesSchema)
  @Query(() => [BadgeInfo], { description: "An app's badges" })
  async badges(
    @Args(() => ListBadgesArgs) args: ListBadgesInput,
    @Ctx() ctx: RequestContext,
  ): Promise<BadgeInfo[]> {
    requireAccount(ctx);
    return this.service.listBadges(args);
  }
}
