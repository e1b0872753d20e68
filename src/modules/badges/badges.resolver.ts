import { Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { Operation } from '../../graphql/operation';
import { unsignedTransactionPayload, UnsignedTransactionPayload } from '../../graphql/shared-types';
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
  async createBadge(args: CreateBadgeInput, ctx: RequestContext): Promise<UnsignedTransactionPayload> {
    return unsignedTransactionPayload(await this.service.createBadge(args, requireAccount(ctx).address));
  }

  @Operation({ kind: 'query', input: listBadgesSchema, output: [BadgeInfo], description: "An app's badges" })
  async badges(args: ListBadgesInput): Promise<BadgeInfo[]> {
    return this.service.listBadges(args);
  }
}
