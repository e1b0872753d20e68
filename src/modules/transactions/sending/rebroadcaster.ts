import { sendSignedTransaction, TransactionRejectedError } from '../../../chain/node-rejections';
import type { Chain } from '../../../chain/registry';
import type { Config } from '../../../config';
import { ChainUnavailableError } from '../../../errors';
import type { TransactionStatus } from '../../../db/prisma';
import { SingleFlight } from '../../../single-flight';
import { freeNoncesOf, markNonceBroadcast } from '../building/nonce-reservations';
import type { TransactionsDeps } from '../transactions.deps';
import type { HeldTransaction } from '../transactions.repository';

/**
 * Since when a transaction recorded is still on its way to the node: the request that recorded it
 * may still be sending it (its nonce-gap check and its send, each within the RPC deadline). Older
 * ones the node does not know were never sent (the process stopped between record and send), or
 * were lost by the chain.
 */
export function onItsWaySince(config: Pick<Config, 'rpcTimeoutMs'>): Date {
  return new Date(Date.now() - onItsWayMs(config));
}

/** Until when a transaction recorded at `recordedAt` is on its way (onItsWaySince). */
export function onItsWayUntil(recordedAt: Date, config: Pick<Config, 'rpcTimeoutMs'>): Date {
  return new Date(recordedAt.getTime() + onItsWayMs(config));
}

function onItsWayMs(config: Pick<Config, 'rpcTimeoutMs'>): number {
  return 2 * config.rpcTimeoutMs;
}

/** What became of a pending transaction Laurel was asked to send again. */
export type RebroadcastOutcome =
  /** The node has it (in its pool, or mined): nothing sent. */
  | 'known'
  /** Not pending any more (mined or dropped meanwhile), or not recorded. */
  | 'settled'
  /** Recorded a moment ago: the request that recorded it may still be sending it. */
  | 'on_its_way'
  /** Laurel holds no signed bytes for it (recorded before it kept them). */
  | 'not_held'
  /** Sent again TRANSACTION_REBROADCAST_ATTEMPTS times already. */
  | 'used_up'
  /** A nonce before it is missing and is not Laurel's to send: it would wait behind that hole. */
  | 'behind_gap'
  /** The node took it again; a receipt job follows it afresh. */
  | 'sent'
  /** The node refused it for good: marked dropped with the node's reason, its nonce freed. */
  | 'refused'
  /** The node could not be reached: the next look tries again. */
  | 'unavailable';

/**
 * Sends again the transactions Laurel recorded and holds the signed bytes of, once the node does
 * not know them: recorded but never sent (the process stopped between record and send), sent
 * with an answer lost on the way, dropped from the node's pool, or taken away by a reorganisation.
 * The chain, not the client, lost them, and a lost nonce blocks every later transaction of the
 * wallet (nonce_gap). Used by the receipt job, the check of receipts after a reorganisation and
 * the reconciliation at start (../following/). A sender's transactions go in nonce order, and none
 * is sent above a missing nonce that is not Laurel's (it would wait unseen behind the hole). A
 * refusal (nonce used by another transaction, insufficient funds, fees…) is final: the
 * transaction is marked dropped with the node's reason. At most TRANSACTION_REBROADCAST_ATTEMPTS
 * sends again per transaction; logged and counted (laurel_transactions_rebroadcast_total).
 */
export class Rebroadcaster {
  /** Looks that overlap (its receipt job's, the look that sent an earlier nonce) share one send. */
  private readonly resending = new SingleFlight<string, RebroadcastOutcome>();

  constructor(
    private readonly deps: Pick<
      TransactionsDeps,
      'config' | 'log' | 'prisma' | 'pool' | 'chains' | 'transactions' | 'metrics'
    >,
  ) {}

  /**
   * Sends again those of `hashes` (pending on `chain`) the node does not know; the outcome of each.
   * `wereMined`: they were mined before a reorganisation took their block, so none is still on
   * its way from the request that recorded it, however recent its record.
   */
  async rebroadcast(
    chain: Chain,
    hashes: readonly string[],
    { wereMined = false } = {},
  ): Promise<Map<string, RebroadcastOutcome>> {
    const outcomes = new Map<string, RebroadcastOutcome>(hashes.map((hash) => [hash, 'settled']));
    const onItsWay = onItsWaySince(this.deps.config);
    /** Each sender's next nonce on the chain, moved on by what is sent here. */
    const nextNonces = new Map<string, number>();
    const resendEach = async (held: readonly HeldTransaction[]) => {
      for (const transaction of held) {
        if (!wereMined && transaction.recordedAt > onItsWay) {
          outcomes.set(transaction.hash, 'on_its_way');
          continue;
        }
        let outcome: RebroadcastOutcome;
        try {
          outcome = await this.resending.run(`${chain.chainId}:${transaction.hash}`, () =>
            this.resend(chain, transaction, nextNonces),
          );
        } catch (error) {
          if (!(error instanceof ChainUnavailableError)) throw error;
          this.deps.log.warn(
            { chain: chain.name, hash: transaction.hash, err: error.message },
            'could not send a lost transaction again: the node is unavailable; the next look tries again',
          );
          outcome = 'unavailable';
        }
        outcomes.set(transaction.hash, outcome);
        // The node has it now: the sender's next nonce is past it.
        const { sender, nonce } = transaction;
        if ((outcome === 'sent' || outcome === 'known') && nextNonces.get(sender) === nonce) {
          nextNonces.set(sender, nonce + 1);
        }
      }
    };
    const held = await this.deps.transactions.held(chain.chainId, hashes);
    await resendEach(held);
    // A chain that lost a transaction lost those it held up too. Each would wait for its own
    // receipt job's next look (minutes apart by then), the wallet stuck meanwhile: they go now.
    const lastSent = new Map<string, number>();
    for (const { hash, sender, nonce } of held) {
      if (outcomes.get(hash) === 'sent') lastSent.set(sender, Math.max(nonce, lastSent.get(sender) ?? nonce));
    }
    for (const [sender, nonce] of lastSent) {
      const later = (await this.deps.transactions.heldAbove(chain.chainId, sender, nonce)).filter(
        (transaction) => !outcomes.has(transaction.hash),
      );
      await resendEach(later);
      // Those the node held behind the gap are mined with it: their receipt jobs look now, not
      // at their next retry (its backoff grew while they waited); one running now looks anyway.
      for (const { hash, requestId } of later) {
        if (outcomes.get(hash) !== 'known') continue;
        const job = { chainId: chain.chainId, hash, requestId };
        await this.deps.transactions.trackReceiptAt(job, new Date(), true);
      }
    }
    return outcomes;
  }

  /**
   * Marks a transaction the node does not know, and that Laurel does not send again, dropped with
   * `reason` (if it still has the status `was`), and frees its nonce for the sender's next build.
   * True when this call dropped it.
   */
  async drop(chain: Chain, hash: string, was: TransactionStatus, reason: string): Promise<boolean> {
    const { transactions, metrics, log, prisma } = this.deps;
    if (!(await transactions.markDropped(chain.chainId, hash, was, reason))) return false;
    metrics?.transactionsDropped.inc({ chain: chain.name });
    await freeNoncesOf(prisma, chain.chainId, [hash]);
    log.warn({ chain: chain.name, hash, was, reason }, 'transaction marked dropped, its nonce freed');
    return true;
  }

  private async resend(
    chain: Chain,
    transaction: HeldTransaction,
    nextNonces: Map<string, number>,
  ): Promise<RebroadcastOutcome> {
    const { chains, config, transactions, metrics, log } = this.deps;
    const { hash, sender, nonce, signedTransaction } = transaction;
    const known = await chains.withProvider(chain, (provider) => provider.getTransaction(hash));
    if (known) return 'known';
    if (!signedTransaction) return 'not_held';
    if (transaction.rebroadcasts >= config.transactions.rebroadcastAttempts) return 'used_up';
    const next =
      nextNonces.get(sender) ??
      (await chains.withProvider(chain, (provider) => provider.getTransactionCount(sender, 'pending')));
    nextNonces.set(sender, next);
    if (nonce > next) return 'behind_gap';
    const attempt = transaction.rebroadcasts + 1;
    try {
      await sendSignedTransaction(chains, chain, signedTransaction, { hash, from: sender, nonce });
    } catch (error) {
      if (!(error instanceof TransactionRejectedError)) throw error;
      metrics?.transactionsRebroadcast.inc({ chain: chain.name, outcome: error.code });
      await this.drop(
        chain,
        hash,
        'pending',
        `the node refused it when Laurel sent it again (${error.code}): ${error.message}`,
      );
      return 'refused';
    }
    metrics?.transactionsRebroadcast.inc({ chain: chain.name, outcome: 'accepted' });
    await transactions.markRebroadcast(chain.chainId, hash);
    await markNonceBroadcast(this.deps.pool, {
      chainId: chain.chainId,
      sender,
      nonce,
      transactionHash: hash,
      ttlSeconds: config.transactions.nonceReservationTtlSeconds,
    });
    log.warn(
      { chain: chain.name, hash, sender, nonce, attempt, of: config.transactions.rebroadcastAttempts },
      'transaction unknown to the node: Laurel sent it again',
    );
    return 'sent';
  }
}
