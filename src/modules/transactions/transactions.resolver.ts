import { Args, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { requireAccount, type RequestContext } from '../../context';
import { ValidateArgs } from '../../graphql/validate-args';
import { executeTransactionSchema, type ExecuteTransactionInput } from './transactions.schema';
import type { TransactionsService } from './transactions.service';
import { ExecuteTransactionArgs, TransactionExecution } from './transactions.types';

@Resolver()
export class TransactionsResolver {
  constructor(private readonly transactions: TransactionsService) {}

  @Authorized()
  @ValidateArgs(executeTransactionSchema)
  @Mutation(() => TransactionExecution, {
    description: 'Broadcasts a signed transaction and answers once the node accepted it',
  })
  async executeTransaction(
    @Args(() => ExecuteTransactionArgs) args: ExecuteTransactionInput,
    @Ctx() ctx: RequestContext,
  ): Promise<TransactionExecution> {
    return this.transactions.execute(args, requireAccount(ctx));
  }

  @Authorized()
  @ValidateArgs(executeTransactionSchema)
  @Mutation(() => TransactionExecution, {
    description: 'Broadcasts a signed transaction and waits for its receipt (or a timeout)',
  })
  async executeTransactionAndWait(
    @Args(() => ExecuteTransactionArgs) args: ExecuteTransactionInput,
    @Ctx() ctx: RequestContext,
  ): Promise<TransactionExecution> {
    return this.transactions.executeAndWait(args, requireAccount(ctx));
  }
}
