import { Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../operations/request-context';
import { LiveOperation } from '../../operations/live';
import { Operation } from '../../operations/operation';
import {
  executeTransactionSchema,
  listTransactionsSchema,
  releaseReservationsSchema,
  transactionStatusSchema,
  type ExecuteTransactionInput,
  type ListTransactionsInput,
  type ReleaseReservationsInput,
  type TransactionStatusInput,
} from './transactions.schema';
import type { UnsentBuilds } from './building/unsent-builds';
import type { TransactionSender } from './sending/transaction-sender';
import type { TransactionStatusReader } from './status/transaction-status';
import type { TransactionsWing } from './transactions.wing';
import {
  ReleasedReservations,
  TransactionExecution,
  TransactionPage,
  TransactionState,
} from './transactions.types';

@Resolver()
export class TransactionsResolver {
  private readonly sending: TransactionSender;
  private readonly status: TransactionStatusReader;
  private readonly unsentBuilds: UnsentBuilds;

  constructor(wing: TransactionsWing) {
    this.sending = wing.sending;
    this.status = wing.status;
    this.unsentBuilds = wing.unsentBuilds;
  }

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
    return this.sending.execute(args, ctx.requestId);
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
    return this.sending.executeAndWait(args, ctx.requestId);
  }

  @Operation({
    kind: 'query',
    scope: 'read',
    input: transactionStatusSchema,
    output: TransactionState,
    description:
      'A transaction the caller’s wallet signed, sent through this service by any key: pending, success, failed or dropped, with its receipt once mined',
  })
  async transactionStatus(
    args: TransactionStatusInput,
    ctx: AuthenticatedContext,
  ): Promise<TransactionState> {
    return this.status.status(args, ctx.account);
  }

  @LiveOperation({
    scope: 'read',
    name: 'transactionStatus',
    input: transactionStatusSchema,
    output: TransactionState,
    description:
      'A transaction the caller’s wallet signed, sent through this service by any key: its state now, then at each change of its status (pending → success, failed or dropped; pending again when a reorganisation took its block away)',
  })
  transactionStatusChanged(
    args: TransactionStatusInput,
    ctx: AuthenticatedContext,
  ): AsyncIterable<TransactionState> {
    return this.status.statusChanges(args, ctx.account, ctx.log);
  }

  @Operation({
    kind: 'query',
    scope: 'read',
    input: listTransactionsSchema,
    output: TransactionPage,
    description:
      'The transactions the caller’s wallet signed and sent through this service (by any of its keys), as recorded, newest first: filtered by chain, status and sender, paged',
  })
  async transactions(args: ListTransactionsInput, ctx: AuthenticatedContext): Promise<TransactionPage> {
    return this.status.list(args, ctx.account);
  }

  @Operation({
    kind: 'mutation',
    input: releaseReservationsSchema,
    output: ReleasedReservations,
    description:
      'Frees the nonces of the caller’s builds on a chain that were never sent, so the next build does not wait behind them',
  })
  async releaseNonceReservations(
    args: ReleaseReservationsInput,
    ctx: AuthenticatedContext,
  ): Promise<ReleasedReservations> {
    return this.unsentBuilds.release(args, ctx.account);
  }
}
