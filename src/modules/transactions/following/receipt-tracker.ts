import type { TransactionReceipt } from 'ethers';
import { waitForReceipt } from '../../../chain/receipts';
import { RetryLaterError } from '../../../jobs/jobs';
import type { ReceiptJob, ReceiptTracking } from '../../../jobs/tasks';
import { freeNoncesOf } from '../building/nonce-reservations';
import type { TransactionsDeps } from '../transactions.deps';

/** How long one attempt of the receipt job waits for the receipt before handing the job back for a retry. */
export const TRACK_RECEIPT_ATTEMPT_WAIT_MS = 2000;
/** How often a chain's receipts that a reorganisation could still take away are compared with it. */
export const RECEIPT_CHECK_INTERVAL_MS = 15_000;

/**
 * Follows broadcast transactions to their receipts: the receipt job (transactions__track_receipt),
 * the hand-over of execute-and-waits that ended without one (transactions__track_pending), and the
 * recording of a receipt, whoever got it.
 */
export class ReceiptTracker implements ReceiptTracking {
  constructor(private readonly deps: TransactionsDeps) {}

  /**
   * One attempt of the receipt job (transactions__track_receipt): waits briefly for the receipt
   * and writes its outcome on the transaction's row; not mined yet: RetryLaterError, and
   * graphile-worker retries with exponential backoff. A transaction the node does not know (never
   * received, e.g. after an ambiguous broadcast, dropped from its pool, or mined in a block a
   * reorganisation replaced) is marked dropped and its nonce freed once it has been pending for
   * TRANSACTION_DROP_AFTER_SECONDS, or on the last attempt. Its log lines carry the id of the
   * request that broadcast the transaction.
   */
  async trackReceipt(job: ReceiptJob, lastAttempt: boolean): Promise<void> {
    const { chainId, hash } = job;
    const { chains, transactions } = this.deps;
    const log = job.requestId ? this.deps.log.child({ requestId: job.requestId }) : this.deps.log;
    const chain = chains.byChainId(chainId);
    if (!chain) {
      log.warn({ chainId, hash }, 'chain id is not served any more: not tracking the transaction');
      return;
    }
    const receipt = await waitForReceipt(chains, chain, hash, TRACK_RECEIPT_ATTEMPT_WAIT_MS);
    if (receipt) {
      await this.recordReceipt(chainId, receipt);
      log.debug({ chain: chain.name, hash, block: receipt.blockNumber }, 'receipt recorded');
      return;
    }
    const known = await chains
      .withProvider(chain, (provider) => provider.getTransaction(hash))
      .catch(() => undefined);
    if (known === null) {
      const pendingSince = await transactions.pendingSince(chainId, hash);
      const dropAfterMs = this.deps.config.transactions.dropAfterSeconds * 1000;
      if (!pendingSince || Date.now() - pendingSince.getTime() >= dropAfterMs || lastAttempt) {
        if (await transactions.markDropped(chainId, hash)) {
          this.deps.metrics?.transactionsDropped.inc({ chain: chain.name });
          await freeNoncesOf(this.deps.prisma, chainId, [hash]);
          log.warn(
            { chain: chain.name, hash },
            'transaction unknown to the node: marked dropped, its nonce freed',
          );
        }
        return;
      }
    }
    throw new RetryLaterError(`transaction ${hash} on chain ${chain.name} has no receipt yet`);
  }

  /**
   * Gives every transaction still pending past the end of its execute-and-wait (`overdue`), or
   * every pending one (`all`), to a receipt job due now (transactions__track_pending); returns how
   * many. Logged for `overdue`: a request's process died mid-wait.
   */
  async trackPending(which: 'overdue' | 'all'): Promise<number> {
    const handed = await this.deps.transactions.handOver(which);
    if (which === 'all') {
      this.deps.log.debug({ transactions: handed }, 'pending transactions: receipt jobs ask the chain now');
    } else if (handed > 0) {
      this.deps.log.warn(
        { transactions: handed },
        'transactions still pending after their execute-and-wait ended (its process stopped?): receipt jobs follow them',
      );
    }
    return handed;
  }

  /**
   * Records a receipt (and the `transaction` event, whose first webhook attempts this process then
   * makes); the chain's receipts are checked again later.
   */
  async recordReceipt(chainId: number, receipt: TransactionReceipt): Promise<void> {
    const { firstAttempts } = this.deps;
    const leaseSeconds = firstAttempts.leaseSeconds();
    const deliveries = await this.deps.transactions.recordReceipt(chainId, receipt, {
      checkAfter: new Date(Date.now() + RECEIPT_CHECK_INTERVAL_MS),
      firstAttemptSeconds: leaseSeconds,
    });
    if (leaseSeconds !== null) firstAttempts.start(deliveries);
  }
}
