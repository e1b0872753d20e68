import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { UnsignedTransactionPayload } from '../../graphql/shared-types';
import { ValidateArgs } from '../../graphql/validate-args';
import { createAppSchema, listAppsSchema, type CreateAppInput, type ListAppsInput } from './apps.schema';
import type { AppsService } from './apps.service';
import { AppInfo, CreateAppArgs, ListAppsArgs } from './apps.types';

@Resolver()
export class AppsResolver {
  constructor(private readonly service: AppsService) {}

  @Authorized()
  @ValidateArgs(createAppSchema)
  @Mutation(() => UnsignedTransactionPayload, {
    description: 'Builds the transaction that creates an app (with its XP token) owned by the caller',
  })
  async createApp(
    @Args(() => CreateAppArgs) args: CreateAppInput,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsignedTransactionPayload> {
    return { unsignedTransaction: await this.service.createApp(args, requireAccount(ctx).address) };
  }

  @Authorized()
  @ValidateArgs(listAppsSchema)
  @Query(() => [AppInfo], { description: 'The apps the caller owns or operates' })
  async apps(@Args(() => ListAppsArgs) args: ListAppsInput, @Ctx() ctx: RequestContext): Promise<AppInfo[]> {
    return this.service.listApps(args, requireAccount(ctx).address);
  }
}
