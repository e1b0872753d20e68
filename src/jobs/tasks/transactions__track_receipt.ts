import type { z } from 'zod';
import { defineTask, jobs } from '../jobs';

/** What the receipt tasks need: the transactions module's receipt tracking. */
export interface ReceiptTracking {
  /**
   * Waits briefly for the transaction's receipt and records its outcome; throws RetryLaterError
   * while it is not mined yet. At the last attempt, a transaction the node does not know is given up.
   */
  trackReceipt(job: ReceiptJob, attempt: ReceiptJobAttempt): Promise<void>;
  /**
   * Enqueues a receipt job, due now, for every transaction still pending past the end of its
   * execute-and-wait (`overdue`), or for every pending one (`all`) (transactions__track_pending);
   * returns how many.
   */
  trackPending(which: 'overdue' | 'all'): Promise<number>;
}

/** The job's payload: the transaction, and the request that broadcast it (for log lines). */
export type ReceiptJob = z.output<typeof jobs.trackReceipt.payload>;

/** Which attempt of its job runs: the `attempts`-th (from 1) of `maxAttempts`. */
export interface ReceiptJobAttempt {
  attempts: number;
  maxAttempts: number;
}

/** transactions__track_receipt {chainId, hash}: one attempt at a broadcast transaction's receipt. */
export const trackReceiptTask = defineTask(
  jobs.trackReceipt,
  ({ receipts }: { receipts: ReceiptTracking }) =>
    async (job, helpers) =>
      receipts.trackReceipt(job, { attempts: helpers.job.attempts, maxAttempts: helpers.job.max_attempts }),
);
