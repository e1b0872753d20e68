import { waitForReceipt } from '../../chain/receipts';
import { TransactionsRepository } from '../../modules/transactions/transactions.repository';
import { defineTask, jobs } from '../jobs';

/** How long one attempt waits for the receipt before handing the job back for a retry. */
export const TRACK_RECEIPT_ATTEMPT_WAIT_MS = 2000;

/**
 * transactions__track_receipt {chainId, hash}: waits (briefly) for a broadcast transaction's
 * receipt and writes its outcome on the `transactions` row. Not mined yet: the task fails and
 * graphile-worker retries it with exponential backoff. On the last attempt, a transaction the
 * node does not know any more (dropped) is marked failed.
 */
export const trackReceiptTask = defineTask(jobs.trackReceipt, ({ prisma, chains }) => {
  const transactions = new TransactionsRepository(prisma);
  return async ({ chainId, hash }, helpers) => {
    const chain = chains.byChainId(chainId);
    if (!chain) {
      helpers.logger.warn(`chain id ${chainId} is not served any more: not tracking ${hash}`);
      return;
    }
    const receipt = await waitForReceipt(chains, chain, hash, TRACK_RECEIPT_ATTEMPT_WAIT_MS);
    if (receipt) {
      await transactions.recordReceipt(chainId, receipt);
      return;
    }
    if (helpers.job.attempts >= helpers.job.max_attempts) {
      const known = await chains
        .call(chain, (provider) => provider.getTransaction(hash))
        .catch(() => undefined);
      if (known === null) {
        await transactions.markDropped(chainId, hash);
        return;
      }
    }
    throw new Error(`transaction ${hash} on chain ${chain.name} has no receipt yet`);
  };
});
