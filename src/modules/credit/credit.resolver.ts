import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { UnsignedTransactionPayload } from '../../graphql/shared-types';
import { ValidateArgs } from '../../graphql/validate-args';
import {
  approveCreditSchema,
  createCreditTokenSchema,
  creditBalanceSchema,
  creditPermitDataSchema,
  creditTokensSchema,
  type ApproveCreditInput,
  type CreateCreditTokenInput,
  type CreditBalanceInput,
  type CreditPermitDataInput,
  type CreditTokensInput,
} from './credit.schema';
import type { CreditService } from './credit.service';
import {
  ApproveCreditArgs,
  CreateCreditTokenArgs,
  CreditBalance,
  CreditBalanceArgs,
  CreditPermitDataArgs,
  CreditTokenInfo,
  CreditTokensArgs,
  PermitData,
} from './credit.types';

@Resolver()
export class CreditResolver {
  constructor(private readonly service: CreditService) {}

  @Authorized()
  @ValidateArgs(createCreditTokenSchema)
  @Mutation(() => UnsignedTransactionPayload, {
    description:
      'Builds the transaction that creates a credit (or point) token of an app; the supply goes to the caller',
  })
  async createCreditToken(
    @Args(() => CreateCreditTokenArgs) args: CreateCreditTokenInput,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsignedTransactionPayload> {
    return { unsignedTransaction: await this.service.createToken(args, requireAccount(ctx).address) };
  }

  @Authorized()
  @ValidateArgs(approveCreditSchema)
  @Mutation(() => UnsignedTransactionPayload, {
    description:
      "Builds the transaction that lets spender_address transfer up to amount of the caller's tokens",
  })
  async approveCredit(
    @Args(() => ApproveCreditArgs) args: ApproveCreditInput,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsignedTransactionPayload> {
    return { unsignedTransaction: await this.service.approve(args, requireAccount(ctx).address) };
  }

  @Authorized()
  @ValidateArgs(creditPermitDataSchema)
  @Query(() => PermitData, { description: 'The EIP-2612 permit digest a holder signs to allow a spender' })
  async creditPermitData(@Args(() => CreditPermitDataArgs) args: CreditPermitDataInput): Promise<PermitData> {
    return this.service.permitData(args);
  }

  @Authorized()
  @ValidateArgs(creditBalanceSchema)
  @Query(() => CreditBalance, { description: "A holder's balance of a credit or point token" })
  async creditBalance(@Args(() => CreditBalanceArgs) args: CreditBalanceInput): Promise<CreditBalance> {
    return this.service.balance(args);
  }

  @Authorized()
  @ValidateArgs(creditTokensSchema)
  @Query(() => [CreditTokenInfo], { description: "An app's credit and point tokens" })
  async creditTokens(@Args(() => CreditTokensArgs) args: CreditTokensInput): Promise<CreditTokenInfo[]> {
    return this.service.tokens(args);
  }
}
