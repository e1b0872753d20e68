import { Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { Operation } from '../../graphql/operation';
import { unsignedTransactionPayload, UnsignedTransactionPayload } from '../../graphql/shared-types';
import { createAppSchema, listAppsSchema, type CreateAppInput, type ListAppsInput } from './apps.schema';
import type { AppsService } from './apps.service';
import { AppInfo } from './apps.types';

@Resolver()
export class AppsResolver {
  constructor(private readonly service: AppsService) {}

  @Operation({
    kind: 'mutation',
    input: createAppSchema,
    output: UnsignedTransactionPayload,
    description: 'Builds the transaction that creates an app (with its XP token) owned by the caller',
  })
  async createApp(args: CreateAppInput, ctx: RequestContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.createApp(args, requireAccount(ctx).address));
  }

  @Operation({
    kind: 'query',
    input: listAppsSchema,
    output: [AppInfo],
    description: 'The apps the caller owns or operates',
  })
  async apps(args: ListAppsInput, ctx: RequestContext): Promise<AppInfo[]> {
    return this.service.listApps(args, requireAccount(ctx).address);
  }
}
