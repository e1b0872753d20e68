import { SHAPE_C } from '../../operations/error-shapes';
import type { RestRoute } from '../../operations/routes';
import type { TransactionsResolver } from './transactions.resolver';

/**
 * Validation failures: Shape C. A node's rejection: Shape A `{status:'failed', error, reason,
 * transactionHash}` with 409 (nonce problems) or 422. A timeout of execute-and-wait: 202 (the
 * transaction is out; its outcome is not known yet). A reverted transaction: 200 with
 * `status: 'failed'` and its receipt.
 */
export const transactionsRoutes: RestRoute<TransactionsResolver>[] = [
  {
    method: 'post',
    path: '/transactions/execute',
    operation: 'executeTransaction',
    errors: SHAPE_C,
    envelope: 'none',
  },
  {
    method: 'post',
    path: '/transactions/execute-and-wait',
    operation: 'executeTransactionAndWait',
    errors: SHAPE_C,
    envelope: 'none',
    status: (result) => (result.error === 'Timeout' ? 202 : 200),
    alsoAnswers: [
      {
        status: 202,
        description:
          "The receipt did not come within EXECUTE_WAIT_TIMEOUT_SECONDS: {status:'failed', error:'Timeout', transactionHash, blockExplorerUrl}",
      },
    ],
  },
];
