import { defineTask, jobs } from '../jobs';

/** What the task needs: the transactions module's check of recorded receipts against the chain. */
export interface ReceiptChecks {
  /**
   * Compares the chain's recorded receipts above its finalized block with the chain: a receipt
   * whose block was replaced makes its transaction pending again. Checks again later while some
   * receipts are not final.
   */
  checkReceipts(chainId: number): Promise<void>;
}

/** transactions__check_receipts {chainId}: one check of a chain's receipts that may still be reorganised away. */
export const checkReceiptsTask = defineTask(
  jobs.checkReceipts,
  ({ receiptChecks }: { receiptChecks: ReceiptChecks }) =>
    async ({ chainId }) =>
      receiptChecks.checkReceipts(chainId),
);
