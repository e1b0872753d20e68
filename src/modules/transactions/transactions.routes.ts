import type { Router } from 'express';
import { SHAPE_C } from '../../http/error-shapes';
import { mount } from '../../http/rest';
import { executeTransactionSchema } from './transactions.schema';
import type { TransactionsResolver } from './transactions.resolver';
import type { TransactionExecution } from './transactions.types';

/**
 * Validation failures: Shape C. A node's rejection: Shape A `{status:'failed', error, reason,
 * transactionHash}` with 409 (nonce problems) or 422. A timeout of execute-and-wait: 202 (the
 * transaction is out; its outcome is not known yet). A reverted transaction: 200 with
 * `status: 'failed'` and its receipt.
 */
export function mountTransactionsRoutes(router: Router, resolver: TransactionsResolver): void {
  mount(router, {
    method: 'post',
    path: '/transactions/execute',
    input: executeTransactionSchema,
    errors: SHAPE_C,
    envelope: 'none',
    handle: (input, ctx) => resolver.executeTransaction(input, ctx),
  });
  mount(router, {
    method: 'post',
    path: '/transactions/execute-and-wait',
    input: executeTransactionSchema,
    errors: SHAPE_C,
    envelope: 'none',
    handle: (input, ctx) => resolver.executeTransactionAndWait(input, ctx),
    status: (result) => ((result as TransactionExecution).error === 'Timeout' ? 202 : 200),
  });
}
