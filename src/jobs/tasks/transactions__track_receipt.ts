import { freeNoncesOf } from '../../chain/nonces';
import { waitForReceipt } from '../../chain/receipts';
import { TransactionsRepository } from '../../modules/transactions/transactions.repository';
import { defineTask, jobs, RetryLaterError } from '../jobs';

/** How long one attempt waits for the receipt before handing the job back for a retry. */
export const TRACK_RECEIPT_ATTEMPT_WAIT_MS = 2000;

/**
 * transactions__track_receipt {chainId, hash}: waits (briefly) for a broadcast transaction's
 * receipt and writes its outcome on the `transactions` row. Not mined yet: the task fails and
 * graphile-worker retries it with exponential backoff. A transaction the node does not know
 * (never received, e.g. after an ambiguous broadcast, or dropped from its pool) is marked dropped
 * and its nonce freed once it was recorded TRANSACTION_DROP_AFTER_SECONDS ago, or on the last attempt.
 */
export const trackReceiptTask = defineTask(jobs.trackReceipt, ({ prisma, chains, config, log }) => {
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
    const known = await chains
      .call(chain, (provider) => provider.getTransaction(hash))
      .catch(() => undefined);
    if (known === null) {
      const recordedAt = await transactions.recordedAt(chainId, hash);
      const unknownLongEnough =
        !recordedAt || Date.now() - recordedAt.getTime() >= config.transactions.dropAfterSeconds * 1000;
      if (unknownLongEnough || helpers.job.attempts >= helpers.job.max_attempts) {
        if (await transactions.markDropped(chainId, hash)) {
          await freeNoncesOf(prisma, chainId, [hash]);
          log.warn(
            { chain: chain.name, hash },
            'transaction unknown to the node: marked dropped, its nonce freed',
          );
        }
        return;
      }
    }
    throw new RetryLaterError(`transaction ${hash} on chain ${chain.name} has no receipt yet`);
  };
});
