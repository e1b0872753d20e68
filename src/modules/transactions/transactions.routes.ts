import { STATUS_FAILED_BODY, ERROR_ISSUES_BODY } from '../../operations/error-shapes';
import { NODE_REJECTED } from '../../chain/node-rejections';
import { CHAIN_UNAVAILABLE } from '../../errors';
import { RECORD_KEPT, NONCE_GAP, SIGNER_MISMATCH, TRANSACTION_NOT_FOUND } from './transactions.failures';
import type { RestRoute } from '../../operations/routes';
import { TransactionsResolver } from './transactions.resolver';

/**
 * Validation failures: Shape C. A node's rejection: Shape A `{status:'failed', error, reason,
 * transactionHash}` with 409 (nonce problems) or 422. A timeout of execute-and-wait: 200 with
 * `{status:'failed', error:'Timeout'}` (the original service's status; the transaction is out and
 * its outcome not known yet). A reverted transaction: 200 with `status: 'failed'` and its receipt.
 */
/** What sending a signed transaction can fail with (503: the body says whether it may have reached the node). */
const SEND_FAILURES = [...NODE_REJECTED, NONCE_GAP, SIGNER_MISMATCH, CHAIN_UNAVAILABLE, RECORD_KEPT];

export const transactionsRoutes: RestRoute<TransactionsResolver>[] = [
  {
    method: 'post',
    path: '/transactions/execute',
    operation: TransactionsResolver.prototype.executeTransaction,
    errors: ERROR_ISSUES_BODY,
    failures: SEND_FAILURES,
    envelope: 'none',
  },
  {
    method: 'post',
    path: '/transactions/execute-and-wait',
    operation: TransactionsResolver.prototype.executeTransactionAndWait,
    errors: ERROR_ISSUES_BODY,
    failures: SEND_FAILURES,
    envelope: 'none',
    description:
      "The receipt did not come within EXECUTE_WAIT_TIMEOUT_SECONDS: 200 with {status:'failed', error:'Timeout', transactionHash, blockExplorerUrl}, as the original service answers (the transaction is out; GET /v1/transactions/{hash} tells what became of it).",
  },
  {
    method: 'get',
    path: '/transactions',
    operation: TransactionsResolver.prototype.transactions,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
    description:
      'Pages of `page_size` (default 20), newest first (the order Laurel recorded them in); `total` counts every match. `status` is as recorded (receipt jobs record it): GET /v1/transactions/{hash} reads the chain now.',
  },
  {
    method: 'get',
    path: '/transactions/:hash',
    operation: TransactionsResolver.prototype.transactionStatus,
    errors: STATUS_FAILED_BODY,
    failures: [TRANSACTION_NOT_FOUND, CHAIN_UNAVAILABLE],
    envelope: 'none',
    description:
      'For transactions sent through this service with the caller’s API key (execute or execute-and-wait); any other hash is 404. `status` is the chain’s word now (a receipt read at each call); `created` lists what a successful transaction created.',
  },
  {
    method: 'delete',
    path: '/transactions/reservations',
    operation: TransactionsResolver.prototype.releaseNonceReservations,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
    description:
      'Each build reserves its nonce until it is sent (or for NONCE_RESERVATION_TTL_SECONDS); builds never sent would make the next sent transaction wait behind them (409 nonce_gap). This frees the caller’s unsent ones on `chain`; builds already sent are kept.',
  },
];
