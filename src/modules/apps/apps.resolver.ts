import { Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../operations/request-context';
import { Operation } from '../../operations/operation';
import { unsignedTransactionPayload, UnsignedTransactionPayload } from '../../operations/shared-types';
import {
  appOperatorSchema,
  createAppSchema,
  listAppsSchema,
  type AppOperatorInput,
  type CreateAppInput,
  type ListAppsInput,
} from './apps.schema';
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
  async createApp(args: CreateAppInput, ctx: AuthenticatedContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.createApp(args, ctx.account.address));
  }

  @Operation({
    kind: 'mutation',
    input: appOperatorSchema,
    output: UnsignedTransactionPayload,
    description:
      "Builds the transaction that makes a wallet an operator of the caller's app: it may then reward and create tokens and badges",
  })
  async addOperator(args: AppOperatorInput, ctx: AuthenticatedContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.setOperator(args, ctx.account.address, true));
  }

  @Operation({
    kind: 'mutation',
    input: appOperatorSchema,
    output: UnsignedTransactionPayload,
    description: "Builds the transaction that takes an operator's rights on the caller's app away",
  })
  async removeOperator(
    args: AppOperatorInput,
    ctx: AuthenticatedContext,
  ): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.setOperator(args, ctx.account.address, false));
  }

  @Operation({
    kind: 'query',
    scope: 'read',
    input: listAppsSchema,
    output: [AppInfo],
    description: 'The apps the caller owns or operates, each with its operators',
  })
  async apps(args: ListAppsInput, ctx: AuthenticatedContext): Promise<AppInfo[]> {
    return this.service.listApps(args, ctx.account.address);
  }
}
