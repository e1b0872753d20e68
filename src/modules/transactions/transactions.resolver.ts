import { Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../operations/request-context';
import { Operation } from '../../operations/operation';
import { executeTransactionSchema, type ExecuteTransactionInput } from './transactions.schema';
import type { TransactionsService } from './transactions.service';
import { TransactionExecution } from './transactions.types';

@Resolver()
export class TransactionsResolver {
  constructor(private readonly transactions: TransactionsService) {}

  @Operation({
    kind: 'mutation',
    input: executeTransactionSchema,
    output: TransactionExecution,
    description: 'Broadcasts a signed transaction and answers once the node accepted it',
  })
  async executeTransaction(
    args: ExecuteTransactionInput,
    ctx: AuthenticatedContext,
  ): Promise<TransactionExecution> {
    return this.transactions.execute(args, ctx.account);
  }

  @Operation({
    kind: 'mutation',
    input: executeTransactionSchema,
    output: TransactionExecution,
    description: 'Broadcasts a signed transaction and waits for its receipt (or a timeout)',
  })
  async executeTransactionAndWait(
    args: ExecuteTransactionInput,
    ctx: AuthenticatedContext,
  ): Promise<TransactionExecution> {
    return this.transactions.executeAndWait(args, ctx.account);
  }
}
