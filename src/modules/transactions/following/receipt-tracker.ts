import type { TransactionReceipt } from 'ethers';
import { waitForReceipt } from '../../../chain/receipts';
import { nextRetryAt, RetryLaterError } from '../../../jobs/jobs';
import type { ReceiptJob, ReceiptJobAttempt, ReceiptTracking } from '../../../jobs/tasks';
import { onItsWayUntil, type RebroadcastOutcome, type Rebroadcaster } from '../sending/rebroadcaster';
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
  constructor(
    private readonly deps: TransactionsDeps,
    /** Sends again what the node lost; marks dropped what Laurel does not send again. */
    private readonly rebroadcaster: Rebroadcaster,
  ) {}

  /**
   * One attempt of the receipt job (transactions__track_receipt): waits briefly for the receipt
   * and writes its outcome on the transaction's row; not mined yet: RetryLaterError, and
   * graphile-worker retries with exponential backoff. A transaction the node does not know (never
   * received: the process stopped before sending it, or an ambiguous broadcast; dropped from its
   * pool; or mined in a block a reorganisation replaced) is sent again by Laurel
   * (../sending/rebroadcaster.ts), and a new receipt job follows it. One still on its way from the
   * request that recorded it is looked at again when that ends, if the backoff would wait longer:
   * it blocks the sender's later nonces. One Laurel does not send again (no signed bytes kept, its
   * sends again used up, a nonce before it missing) is marked dropped and its nonce freed once it
   * has been pending for TRANSACTION_DROP_AFTER_SECONDS, or on the last attempt; one the node
   * refuses is dropped with the node's reason. Its log lines carry the id of the request that
   * broadcast the transaction.
   */
  async trackReceipt(job: ReceiptJob, { attempts, maxAttempts }: ReceiptJobAttempt): Promise<void> {
    const { chainId, hash } = job;
    const { chains, transactions, config } = this.deps;
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
    const outcome = (await this.rebroadcaster.rebroadcast(chain, [hash])).get(hash)!;
    // Sent again (a new receipt job follows it), dropped for the node's reason, or no longer pending.
    if (outcome === 'sent' || outcome === 'refused' || outcome === 'settled') return;
    const noReceiptYet = new RetryLaterError(`transaction ${hash} on chain ${chain.name} has no receipt yet`);
    if (outcome === 'known' || outcome === 'unavailable') throw noReceiptYet;
    const times = await transactions.pendingTimes(chainId, hash);
    if (!times) return;
    const lastAttempt = attempts >= maxAttempts;
    if (outcome === 'on_its_way' && !lastAttempt) {
      const until = onItsWayUntil(times.recordedAt, config);
      if (nextRetryAt(attempts) <= until) throw noReceiptYet;
      await transactions.trackReceiptAt(job, until);
      return;
    }
    const dropAfterSeconds = config.transactions.dropAfterSeconds;
    // One still on its way is given until the job's last attempt.
    const timedOut =
      outcome !== 'on_its_way' && Date.now() - times.pendingSince.getTime() >= dropAfterSeconds * 1000;
    if (!timedOut && !lastAttempt) throw noReceiptYet;
    const when = lastAttempt
      ? 'at the last attempt of its receipt job'
      : `for ${dropAfterSeconds} s (TRANSACTION_DROP_AFTER_SECONDS)`;
    await this.rebroadcaster.drop(chain, hash, 'pending', unsentReason(outcome, when));
  }

  /**
   * Gives every transaction still pending past the end of its execute-and-wait (`overdue`), or
   * every pending one (`all`), to a receipt job due now (transactions__track_pending); returns how
   * many. Those past the end of their wait are logged: a request's process died mid-wait.
   */
  async trackPending(which: 'overdue' | 'all'): Promise<number> {
    const { handed, overdue } = await this.deps.transactions.handOver(which);
    if (overdue > 0) {
      this.deps.log.warn(
        { transactions: overdue },
        'transactions still pending after their execute-and-wait ended (its process stopped?): receipt jobs follow them',
      );
    }
    if (which === 'all') {
      this.deps.log.debug({ transactions: handed }, 'pending transactions: receipt jobs ask the chain now');
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

/** Why a transaction unknown to the node, which Laurel did not send again, is dropped. */
export function unsentReason(outcome: RebroadcastOutcome, when: string): string {
  const why: Partial<Record<RebroadcastOutcome, string>> = {
    not_held: 'Laurel holds no signed bytes to send it again',
    used_up: 'Laurel sent it again as many times as TRANSACTION_REBROADCAST_ATTEMPTS allows',
    behind_gap: 'a nonce before it is missing, and is not Laurel’s to send',
    on_its_way: 'the node never received it',
  };
  return `unknown to the node ${when}, and not sent again: ${why[outcome] ?? outcome}`;
}
