import { defineTask, jobs } from '../jobs';

/** What the task needs: the transactions module's receipt tracking. */
export interface ReceiptTracking {
  /**
   * Waits briefly for the transaction's receipt and records its outcome; throws RetryLaterError
   * while it is not mined yet. `lastAttempt`: a transaction the node does not know is given up.
   */
  trackReceipt(chainId: number, hash: string, lastAttempt: boolean): Promise<void>;
}

/** transactions__track_receipt {chainId, hash}: one attempt at a broadcast transaction's receipt. */
export const trackReceiptTask = defineTask(
  jobs.trackReceipt,
  ({ receipts }: { receipts: ReceiptTracking }) =>
    async ({ chainId, hash }, helpers) =>
      receipts.trackReceipt(chainId, hash, helpers.job.attempts >= helpers.job.max_attempts),
);
