import { Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../operations/request-context';
import { Operation } from '../../operations/operation';
import { unsignedTransactionPayload, UnsignedTransactionPayload } from '../../operations/shared-types';
import {
  approveCreditSchema,
  createCreditTokenSchema,
  creditBalanceSchema,
  creditPermitDataSchema,
  creditTokensSchema,
  transferCreditSchema,
  type ApproveCreditInput,
  type CreateCreditTokenInput,
  type CreditBalanceInput,
  type CreditPermitDataInput,
  type CreditTokensInput,
  type TransferCreditInput,
} from './credit.schema';
import type { CreditService } from './credit.service';
import { CreditBalance, CreditTokenInfo, PermitData } from './credit.types';

@Resolver()
export class CreditResolver {
  constructor(private readonly service: CreditService) {}

  @Operation({
    kind: 'mutation',
    input: createCreditTokenSchema,
    output: UnsignedTransactionPayload,
    description:
      'Builds the transaction that creates a credit (or point) token of an app; the supply goes to the caller',
  })
  async createCreditToken(
    args: CreateCreditTokenInput,
    ctx: AuthenticatedContext,
  ): Promise<UnsignedTransactionPayload> {
    const transaction = await this.service.createToken(args, ctx.account.address);
    return unsignedTransactionPayload(transaction, { withGas: true });
  }

  @Operation({
    kind: 'mutation',
    input: approveCreditSchema,
    output: UnsignedTransactionPayload,
    description:
      "Builds the transaction that lets spender_address transfer up to amount of the caller's tokens",
  })
  async approveCredit(
    args: ApproveCreditInput,
    ctx: AuthenticatedContext,
  ): Promise<UnsignedTransactionPayload> {
    const transaction = await this.service.approve(args, ctx.account.address);
    return unsignedTransactionPayload(transaction, { withGas: true });
  }

  @Operation({
    kind: 'query',
    input: creditPermitDataSchema,
    output: PermitData,
    description: 'The EIP-2612 permit digest a holder signs to allow a spender',
  })
  async creditPermitData(args: CreditPermitDataInput): Promise<PermitData> {
    return this.service.permitData(args);
  }

  @Operation({
    kind: 'mutation',
    input: transferCreditSchema,
    output: UnsignedTransactionPayload,
    description:
      "Builds the transaction that uses a holder's signed permit and moves the tokens to the receiver (the caller, who sends it and pays its gas)",
  })
  async transferCredit(
    args: TransferCreditInput,
    ctx: AuthenticatedContext,
  ): Promise<UnsignedTransactionPayload> {
    const transaction = await this.service.transfer(args, ctx.account.address);
    return unsignedTransactionPayload(transaction, { withGas: true });
  }

  @Operation({
    kind: 'query',
    scope: 'read',
    input: creditBalanceSchema,
    output: CreditBalance,
    description: "A holder's balance of a credit or point token",
  })
  async creditBalance(args: CreditBalanceInput): Promise<CreditBalance> {
    return this.service.balance(args);
  }

  @Operation({
    kind: 'query',
    scope: 'read',
    input: creditTokensSchema,
    output: [CreditTokenInfo],
    description: "An app's credit and point tokens",
  })
  async creditTokens(args: CreditTokensInput): Promise<CreditTokenInfo[]> {
    return this.service.tokens(args);
  }
}
