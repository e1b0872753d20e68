import type { UnsentBuilds } from './building/unsent-builds';
import type { ReceiptTracker } from './following/receipt-tracker';
import type { Reconciliation } from './following/reconciliation';
import type { TransactionSender } from './sending/transaction-sender';
import type { TransactionStatusReader } from './status/transaction-status';

/** The transaction lifecycle's parts, each built once; the resolver and the job tasks call them. */
export interface TransactionsWing {
  sending: TransactionSender;
  following: ReceiptTracker;
  reconciliation: Reconciliation;
  status: TransactionStatusReader;
  unsentBuilds: UnsentBuilds;
}
