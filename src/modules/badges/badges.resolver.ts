import { Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../operations/request-context';
import { Operation } from '../../operations/operation';
import { unsignedTransactionPayload, UnsignedTransactionPayload } from '../../operations/shared-types';
import {
  createBadgeSchema,
  listBadgesSchema,
  type CreateBadgeInput,
  type ListBadgesInput,
} from './badges.schema';
import type { BadgesService } from './badges.service';
import { BadgeInfo } from './badges.types';

@Resolver()
export class BadgesResolver {
  constructor(private readonly service: BadgesService) {}

  @Operation({
    kind: 'mutation',
    input: createBadgeSchema,
    output: UnsignedTransactionPayload,
    description: 'Builds the transaction that creates a badge (ERC-721 collection) of an app',
  })
  async createBadge(args: CreateBadgeInput, ctx: AuthenticatedContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.createBadge(args, ctx.account.address));
  }

  @Operation({
    kind: 'query',
    scope: 'read',
    input: listBadgesSchema,
    output: [BadgeInfo],
    description: "An app's badges",
  })
  async badges(args: ListBadgesInput): Promise<BadgeInfo[]> {
    return this.service.listBadges(args);
  }
}
