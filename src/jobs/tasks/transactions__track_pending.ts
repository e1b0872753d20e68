import { defineTask, jobs } from '../jobs';
import type { ReceiptTracking } from './transactions__track_receipt';

/**
 * transactions__track_pending: execute-and-wait follows its transaction's receipt itself, without a
 * receipt job (enqueueing one per send, then removing it, would cost more than anything else of a
 * send's database work). A wait that ended without recording the receipt (its process died, the database
 * failed) leaves the transaction pending past its time: this gives each such one to a receipt job,
 * from the crontab every minute. With `all` (at each worker start, and when the worker's database
 * is back after an outage), every pending transaction: a receipt the outage kept from being
 * recorded is recorded at once.
 */
export const trackPendingTask = defineTask(
  jobs.trackPending,
  ({ receipts }: { receipts: ReceiptTracking }) =>
    async ({ all }) => {
      await receipts.trackPending(all ? 'all' : 'overdue');
    },
);
