import type { Transaction } from 'ethers';
import { sendSignedTransaction } from '../../../chain/node-rejections';
import { receiptBlockTime } from '../../../chain/pooled-provider';
import { receiptJson, waitForReceipt } from '../../../chain/receipts';
import type { Chain } from '../../../chain/registry';
import { parseSignedTransaction } from '../../../chain/signed-transactions';
import { isDatabaseUnavailable } from '../../../db/availability';
import { AppError, ChainUnavailableError, ShuttingDownError, ValidationError } from '../../../errors';
import { markNonceBroadcast, releaseUnsentNonces } from '../building/nonce-reservations';
import type { ReceiptTracker } from '../following/receipt-tracker';
import { createdBy, revertError } from '../mined-outcomes';
import type { TransactionsDeps } from '../transactions.deps';
import type { TransactionsRepository } from '../transactions.repository';
import { NonceGapError, RecordKeptError, SignerMismatchError } from '../transactions.failures';
import type { ExecuteTransactionInput } from '../transactions.schema';
import type { TransactionExecution } from '../transactions.types';
import { onItsWaySince } from './rebroadcaster';
import { SenderSignals } from './sender-signals';

/** A transaction the node accepted: where, its hash, its signer and nonce. */
interface Broadcast {
  chain: Chain;
  hash: string;
  sender: string;
  nonce: number;
}

/** Broadcasts signed transactions (execute, execute-and-wait), each recorded before it goes out. */
/** How long a transaction above the sender's pending nonce waits, without progress, for the ones before it. */
export const NONCE_GAP_GRACE_MS = 2000;

export class TransactionSender {
  /** Wakes this process's sends that wait on another transaction of their sender. */
  private readonly signals = new SenderSignals();

  /** The rows of the transactions sent. */
  private readonly transactions: TransactionsRepository;

  /** The sends under way (execute, execute-and-wait, from the record to the answer): stop() awaits them. */
  private readonly underWay = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly deps: TransactionsDeps,
    /** Records the receipt execute-and-wait got (the receipt job's way of recording it). */
    private readonly receipts: ReceiptTracker,
  ) {
    this.transactions = deps.transactions;
  }

  /**
   * Fire and forget: answers once the node accepted the transaction; a job follows the receipt. The
   * transaction is its signer's, whoever sends it (see broadcast).
   */
  execute(input: ExecuteTransactionInput, requestId: string): Promise<TransactionExecution> {
    return this.tracked(async () => {
      const sent = await this.broadcastCounted(input, requestId, null);
      await this.keptIfDatabaseGone(sent.chain, sent.hash, () => this.markBroadcast(sent));
      const { chain, hash } = sent;
      return {
        status: 'success',
        transactionHash: hash,
        blockExplorerUrl: this.deps.chains.transactionUrl(chain, hash),
      };
    });
  }

  /**
   * No send starts from now on (ShuttingDownError: nothing recorded), and the ones under way end,
   * recorded and sent or un-recorded, while the pools and providers they use still serve them
   * (Laurel's stop closes those after this). execute-and-wait stops waiting for its receipt at
   * `answerNow`, before this is called.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.underWay]);
  }

  private async tracked<T>(send: () => Promise<T>): Promise<T> {
    if (this.stopped) throw new ShuttingDownError();
    const sending = send();
    this.underWay.add(sending);
    try {
      return await sending;
    } finally {
      this.underWay.delete(sending);
    }
  }

  /**
   * Broadcasts, then waits for the receipt (config.transactions.executeWaitTimeoutSeconds and the
   * chain's confirmations). A reverted transaction answers `status: 'failed'` with its receipt; a
   * timeout `{status:'failed', error:'Timeout'}` (a receipt job then follows the receipt), also
   * given near the end of a stop's grace (answerNow), while the client is still connected. A
   * successful receipt's events are in the index before the answer (read-your-writes). No receipt
   * job is enqueued while the request waits: one that ends without recording the receipt (its
   * process died) leaves the transaction to transactions__track_pending (../following/receipt-tracker.ts).
   */
  executeAndWait(input: ExecuteTransactionInput, requestId: string): Promise<TransactionExecution> {
    return this.tracked(() => this.sendAndWait(input, requestId));
  }

  private async sendAndWait(
    input: ExecuteTransactionInput,
    requestId: string,
  ): Promise<TransactionExecution> {
    const timeoutMs = this.deps.config.transactions.executeWaitTimeoutSeconds * 1000;
    const followedUntil = new Date(Date.now() + timeoutMs);
    const sent = await this.broadcastCounted(input, requestId, followedUntil);
    return this.keptIfDatabaseGone(sent.chain, sent.hash, () => this.waitAndAnswer(input, sent, timeoutMs));
  }

  /**
   * Runs `work` on a transaction already recorded (its un-record, or what follows its send). The
   * database gone meanwhile answers RecordKeptError (recorded and followed), never a bare
   * `Database unavailable`, which says that nothing was done.
   */
  private async keptIfDatabaseGone<T>(chain: Chain, hash: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof AppError) && isDatabaseUnavailable(error)) {
        throw new RecordKeptError(chain.name, hash);
      }
      throw error;
    }
  }

  /** Waits for a sent transaction's receipt, records it, and answers execute-and-wait. */
  private async waitAndAnswer(
    input: ExecuteTransactionInput,
    sent: Broadcast,
    timeoutMs: number,
  ): Promise<TransactionExecution> {
    const { chain, hash, sender } = sent;
    const blockExplorerUrl = this.deps.chains.transactionUrl(chain, hash);
    // The mark and the wait for the receipt (whose first look is at once) do not wait on each other.
    const [, receipt] = await Promise.all([
      this.markBroadcast(sent),
      waitForReceipt(
        this.deps.chains,
        chain,
        hash,
        timeoutMs,
        (ms) => this.signals.wait(chain.chainId, sender, ms, this.deps.answerNow),
        this.deps.answerNow,
      ),
    ]);
    if (!receipt) {
      await this.transactions.handOver({ chainId: chain.chainId, hash });
      return { status: 'failed', error: 'Timeout', transactionHash: hash, blockExplorerUrl };
    }
    this.signals.notify(chain.chainId, sender);
    // A successful receipt's events go into the index while it is recorded (neither needs the other).
    await Promise.all([
      this.receipts.recordReceipt(chain.chainId, receipt),
      receipt.status === 1
        ? this.deps.indexer.ingestReceipt(chain, receipt, receiptBlockTime(receipt))
        : undefined,
    ]);
    if (receipt.status === 1) {
      return {
        status: 'success',
        transactionHash: hash,
        blockExplorerUrl,
        receipt: receiptJson(receipt),
        created: await createdBy(this.deps.chains, this.deps.log, chain, receipt.logs),
      };
    }
    const transaction = parseSignedTransaction(input.signed_transaction);
    const error = await revertError(this.deps.chains, chain, receipt, {
      from: transaction.from!,
      to: transaction.to,
      data: transaction.data,
      value: transaction.value,
    });
    return {
      status: 'failed',
      transactionHash: hash,
      blockExplorerUrl,
      receipt: receiptJson(receipt),
      error,
    };
  }

  /** The chain a signed transaction goes to: `chain` when given (it must match), else its chain id's. */
  private chainFor(requested: string | undefined, transaction: Transaction): Chain {
    const chainId = Number(transaction.chainId);
    if (requested !== undefined) {
      const chain = this.deps.chains.get(requested);
      if (chainId !== 0 && chainId !== chain.chainId) {
        throw ValidationError.field(
          'chain',
          `Chain "${chain.name}" has chain id ${chain.chainId}, but the transaction is signed for chain id ${chainId}`,
        );
      }
      return chain;
    }
    if (chainId === 0) {
      throw ValidationError.field('chain', 'The signed transaction has no chain id: give `chain`');
    }
    const chain = this.deps.chains.byChainId(chainId);
    if (!chain) {
      const served = this.deps.chains
        .list()
        .map((c) => `${c.name} (${c.chainId})`)
        .join(', ');
      throw ValidationError.field(
        'signed_transaction',
        `The transaction is signed for chain id ${chainId}, which this service does not serve (it serves: ${served || 'no chain'})`,
      );
    }
    return chain;
  }

  /** broadcast(), counted by outcome: accepted, or the code it was refused with (nonce_gap, chain_unavailable…). */
  private async broadcastCounted(
    input: ExecuteTransactionInput,
    requestId: string,
    followedUntil: Date | null,
  ): Promise<Broadcast> {
    const { metrics } = this.deps;
    try {
      const sent = await this.broadcast(input, requestId, followedUntil);
      metrics?.transactionsBroadcast.inc({ chain: sent.chain.name, outcome: 'accepted' });
      return sent;
    } catch (error) {
      if (metrics && error instanceof AppError) {
        // The chain the transaction named; an unknown one is a validation error of its own.
        const chain =
          typeof error.details.chain === 'string' ? error.details.chain : (input.chain ?? 'unknown');
        const known = this.deps.chains.list().some((served) => served.name === chain);
        metrics.transactionsBroadcast.inc({ chain: known ? chain : 'unknown', outcome: error.code });
      }
      throw error;
    }
  }

  /**
   * Records the transaction (row, and the receipt job unless `followedUntil`: TransactionsRepository.record,
   * one statement) before it is broadcast:
   * its hash is known from the signed bytes, so a crash or a database failure can never leave a
   * broadcast transaction unrecorded. A transaction the node already has (in its pool or mined)
   * counts as sent: same hash, same row. A transaction the node rejects, or that is refused for a
   * nonce gap, is un-recorded. The caller marks the nonce broadcast (markBroadcast). Whoever
   * signed it is sent (an app's backend may send its users' signed transactions), unless Laurel
   * built that very call with that nonce for other wallets only: it was then signed with the wrong
   * key, and sending it would act as the signer (rule 7 in ../building/nonce-reservations.ts).
   * That is refused before anything is recorded or sent. It is recorded as the signer's (recovered from the signed
   * bytes): a key that sends someone else's signed transaction, first or not, gets the answer to
   * its call and nothing more; status, subscriptions and webhook events stay the signer's.
   */
  private async broadcast(
    input: ExecuteTransactionInput,
    requestId: string,
    followedUntil: Date | null,
  ): Promise<Broadcast> {
    const transaction = parseSignedTransaction(input.signed_transaction);
    const chain = this.chainFor(input.chain, transaction);
    const hash = transaction.hash!;
    const sender = transaction.from!;
    const sent = { chain, hash, sender, nonce: transaction.nonce };
    // The record (which refuses a build of other wallets: rule 7 in
    // ../building/nonce-reservations.ts) and the sender's next nonce do not wait on each other.
    const [record, nextNonce] = await Promise.allSettled([
      this.transactions.record(chain, transaction, {
        requestId,
        followedUntil,
        signedTransaction: input.signed_transaction,
      }),
      this.pendingNonce(chain, sender),
    ]);
    if (record.status === 'rejected') throw record.reason;
    const { recorded: recordedNow, refusedFor } = record.value;
    if (refusedFor) throw new SignerMismatchError(hash, sender, refusedFor, transaction.nonce);
    // A transaction that does not go out is un-recorded, unless it was recorded before this send.
    // Still recorded if the database goes away first: its receipt job sends it when it can.
    const unrecord = async () => {
      if (recordedNow)
        await this.keptIfDatabaseGone(chain, hash, () => this.transactions.unrecord(chain, hash));
    };
    if (nextNonce.status === 'rejected') {
      await unrecord();
      throw nextNonce.reason;
    }
    // Recorded first, so that parallel sends of consecutive nonces see each other as on their way.
    if (recordedNow) this.signals.notify(chain.chainId, sender);
    try {
      await this.refuseNonceGap(chain, transaction, nextNonce.value);
    } catch (error) {
      await unrecord();
      throw error;
    }
    try {
      await sendSignedTransaction(this.deps.chains, chain, input.signed_transaction, {
        hash,
        from: sender,
        nonce: transaction.nonce,
      });
    } catch (error) {
      if (error instanceof ChainUnavailableError && error.mayHaveArrived) {
        // The node may have taken it (timeout, reset, 5xx): the record and its receipt job stay,
        // and the job decides (mined, still pending, or sent again: ./rebroadcaster.ts).
        await this.markBroadcast(sent);
        throw new ChainUnavailableError(
          chain.name,
          `${error.reason}; the transaction may have reached the node: Laurel keeps following it (sending it again is safe)`,
          true,
          { transactionHash: hash },
        );
      }
      await unrecord();
      throw error;
    }
    // A transaction of the sender queued behind this one may be mined now.
    this.signals.notify(chain.chainId, sender);
    return sent;
  }

  /**
   * A transaction above the sender's next nonce would wait in the node's queue behind the missing
   * ones (rule 4 in ../building/nonce-reservations.ts). It goes on when every nonce before it is on
   * the chain or was just sent through Laurel (recorded, on its way: parallel sends of consecutive
   * nonces). Otherwise, once nothing has moved for NONCE_GAP_GRACE_MS, it is refused with the
   * missing nonces named, and their unsent reservations are freed for the next builds. Missing
   * nonces of transactions Laurel sent, which the chain dropped, are named as such: Laurel sends
   * them again (./rebroadcaster.ts), and the client retries once they are mined.
   */
  private async refuseNonceGap(chain: Chain, transaction: Transaction, firstNext: number): Promise<void> {
    const sender = transaction.from!;
    const inFlightSince = onItsWaySince(this.deps.config);
    let accounted = -1;
    let graceEnds = 0;
    for (let next = firstNext; ; next = await this.pendingNonce(chain, sender)) {
      if (transaction.nonce <= next) return;
      const inFlight = await this.transactions.countInFlight(
        chain.chainId,
        sender,
        next,
        transaction.nonce,
        inFlightSince,
      );
      if (next + inFlight === transaction.nonce) return;
      // The grace restarts whenever a nonce before this one shows up (on chain or recorded).
      if (next + inFlight > accounted) {
        accounted = next + inFlight;
        graceEnds = Date.now() + NONCE_GAP_GRACE_MS;
      } else if (Date.now() >= graceEnds) {
        await releaseUnsentNonces(this.deps.prisma, {
          chainId: chain.chainId,
          sender,
          from: next,
          to: transaction.nonce,
        });
        const dropped = await this.transactions.droppedByTheChain(
          chain.chainId,
          sender,
          next,
          transaction.nonce,
          this.deps.config.transactions.rebroadcastAttempts,
        );
        throw new NonceGapError(transaction.hash!, sender, transaction.nonce, next, dropped);
      }
      await this.signals.wait(chain.chainId, sender, 100);
    }
  }

  /** Keeps the nonce's reservation (if it was built here) from being handed out again meanwhile. */
  private async markBroadcast({ chain, sender, nonce, hash }: Broadcast): Promise<void> {
    await markNonceBroadcast(this.deps.pool, {
      chainId: chain.chainId,
      sender,
      nonce,
      transactionHash: hash,
      ttlSeconds: this.deps.config.transactions.nonceReservationTtlSeconds,
    });
  }

  /** The sender's next nonce on the chain, its pool's transactions counted. */
  private pendingNonce(chain: Chain, sender: string): Promise<number> {
    return this.deps.chains.withProvider(chain, (provider) =>
      provider.getTransactionCount(sender, 'pending'),
    );
  }
}
