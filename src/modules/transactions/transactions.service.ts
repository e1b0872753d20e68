import type { Transaction, TransactionReceipt } from 'ethers';
import type { Pool } from 'pg';
import { blockHeaders } from '../../chain/block-headers';
import { createdContracts, type ReceiptLog } from '../../chain/created-contracts';
import { finalizedBlock } from '../../chain/finality';
import { rejectionOf } from '../../chain/node-rejections';
import {
  freeNoncesOf,
  markNonceBroadcast,
  NONCE_GAP_GRACE_MS,
  NonceGapError,
  releaseUnsentNonces,
} from '../../chain/nonces';
import { minedRevertReason } from '../../chain/reverts';
import { receiptBlockTime } from '../../chain/pooled-provider';
import { receiptJson, waitForReceipt } from '../../chain/receipts';
import { SenderSignals } from '../../chain/sender-signals';
import { parseSignedTransaction } from '../../chain/signed-transactions';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { Config } from '../../config';
import type { PrismaClient } from '../../db/prisma';
import {
  AppError,
  ChainUnavailableError,
  NotFoundError,
  ValidationError,
  type DocumentedFailure,
} from '../../errors';
import type { Indexer } from '../../indexer/indexer';
import { RetryLaterError } from '../../jobs/jobs';
import type { Logger } from '../../logger';
import type { LaurelMetrics } from '../../metrics';
import type { ReceiptJob } from '../../jobs/tasks';
import { liveValues } from '../../operations/live';
import type { AuthenticatedAccount } from '../../operations/request-context';
import type {
  ExecuteTransactionInput,
  ReleaseReservationsInput,
  TransactionStatusInput,
} from './transactions.schema';
import type { TransactionStatusChanges } from './transaction-status-changes';
import type { TransactionsRepository } from './transactions.repository';
import type { FirstAttempts } from '../webhooks/webhook-first-attempts';
import type {
  CreatedContracts,
  ReleasedReservations,
  TransactionExecution,
  TransactionState,
} from './transactions.types';

/** How long one attempt of the receipt job waits for the receipt before handing the job back for a retry. */
export const TRACK_RECEIPT_ATTEMPT_WAIT_MS = 2000;
/** Blocks below the head that a recorded mined transaction is checked in (deeper ones are final). */
export const RECONCILE_DEPTH_BLOCKS = 64;
/** How often a chain's receipts that a reorganisation could still take away are compared with it. */
export const RECEIPT_CHECK_INTERVAL_MS = 15_000;

/**
 * A signed transaction Laurel built for another wallet than its signer (rule 7 of
 * src/chain/nonces.ts): 422, Shape A `{status:'failed', error, reason:'signer_mismatch',
 * transactionHash, signer, built_for}`. Nothing was recorded or sent.
 */
export const SIGNER_MISMATCH: DocumentedFailure = {
  status: 422,
  codes: ['signer_mismatch'],
  description:
    'The transaction is signed by another wallet than the one Laurel built it for (`reason: signer_mismatch`, `signer`, `built_for`): nothing was sent',
};

export class SignerMismatchError extends AppError {
  constructor(transactionHash: string, signer: string, builtFor: string, nonce: number) {
    super(
      SIGNER_MISMATCH.codes[0],
      `The transaction is signed by ${signer}, but Laurel built it for ${builtFor} (nonce ${nonce} of ${builtFor}): ` +
        `sign it with ${builtFor}'s key, or build it again with ${signer}'s API key.`,
      422,
      { reason: 'signer_mismatch', transactionHash, signer, built_for: builtFor },
    );
  }
}

/** 404 for a hash of no transaction of the caller's wallet sent through Laurel (unknown, or another wallet's). */
export const TRANSACTION_NOT_FOUND: DocumentedFailure = {
  status: 404,
  codes: ['transaction_not_found'],
  description:
    'No transaction with this hash signed by the caller’s wallet went through Laurel (one the caller only sent for another wallet is that wallet’s)',
};

export class TransactionNotFoundError extends NotFoundError {
  constructor(hash: string, account: string) {
    super(
      TRANSACTION_NOT_FOUND.codes[0],
      `transaction not found: ${account} signed no transaction ${hash} sent through this service`,
    );
  }
}

export interface TransactionsServiceDeps {
  config: Config;
  log: Logger;
  prisma: PrismaClient;
  /** The pool under `prisma`: what every send runs goes through it as prepared statements. */
  pool: Pool;
  chains: ChainRegistry;
  indexer: Pick<Indexer, 'ingestReceipt'>;
  transactions: TransactionsRepository;
  /** Status changes of recorded transactions, heard from every process (transactionStatus subscriptions). */
  statusChanges: TransactionStatusChanges;
  /** The `transaction` events' first webhook attempts, made by this process after recording a receipt. */
  firstAttempts: Pick<FirstAttempts, 'leaseSeconds' | 'start'>;
  /** Counts broadcasts by outcome and transactions dropped (null: METRICS=off). */
  metrics: LaurelMetrics | null;
}

/** A transaction the node accepted: where, its hash, its signer and nonce. */
interface Broadcast {
  chain: Chain;
  hash: string;
  sender: string;
  nonce: number;
}

/** A transaction the caller sent, as recorded, and its chain. */
interface SentTransaction {
  row: NonNullable<Awaited<ReturnType<TransactionsRepository['findSent']>>>;
  chain: Chain;
}

/** Broadcasts signed transactions, records each one, and follows it to its receipt. */
export class TransactionsService {
  /** Wakes this process's sends that wait on another transaction of their sender. */
  private readonly signals = new SenderSignals();

  constructor(private readonly deps: TransactionsServiceDeps) {}

  /**
   * Fire and forget: answers once the node accepted the transaction; a job follows the receipt. The
   * transaction is its signer's, whoever sends it (see broadcast).
   */
  async execute(input: ExecuteTransactionInput, requestId: string): Promise<TransactionExecution> {
    const sent = await this.broadcastCounted(input, requestId, null);
    await this.markBroadcast(sent);
    const { chain, hash } = sent;
    return {
      status: 'success',
      transactionHash: hash,
      blockExplorerUrl: this.deps.chains.transactionUrl(chain, hash),
    };
  }

  /**
   * Broadcasts, then waits for the receipt (config.transactions.executeWaitTimeoutSeconds and the
   * chain's confirmations). A reverted transaction answers `status: 'failed'` with its receipt; a
   * timeout `{status:'failed', error:'Timeout'}` (a receipt job then follows the receipt). A
   * successful receipt's events are in the index before the answer (read-your-writes). No receipt
   * job is enqueued while the request waits: one that ends without recording the receipt (its
   * process died) leaves the transaction to transactions__track_pending.
   */
  async executeAndWait(input: ExecuteTransactionInput, requestId: string): Promise<TransactionExecution> {
    const timeoutMs = this.deps.config.transactions.executeWaitTimeoutSeconds * 1000;
    const followedUntil = new Date(Date.now() + timeoutMs);
    const sent = await this.broadcastCounted(input, requestId, followedUntil);
    const { chain, hash, sender } = sent;
    const blockExplorerUrl = this.deps.chains.transactionUrl(chain, hash);
    // The mark and the wait for the receipt (whose first look is at once) do not wait on each other.
    const [, receipt] = await Promise.all([
      this.markBroadcast(sent),
      waitForReceipt(this.deps.chains, chain, hash, timeoutMs, (ms) =>
        this.signals.wait(chain.chainId, sender, ms),
      ),
    ]);
    if (!receipt) {
      await this.deps.transactions.handOver({ chainId: chain.chainId, hash });
      return { status: 'failed', error: 'Timeout', transactionHash: hash, blockExplorerUrl };
    }
    this.signals.notify(chain.chainId, sender);
    // A successful receipt's events go into the index while it is recorded (neither needs the other).
    await Promise.all([
      this.recordReceipt(chain.chainId, receipt),
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
        created: await this.createdBy(chain, receipt.logs),
      };
    }
    const transaction = parseSignedTransaction(input.signed_transaction);
    const reason = await this.deps.chains
      .withProvider(chain, (provider) =>
        minedRevertReason(
          provider,
          { from: transaction.from!, to: transaction.to, data: transaction.data, value: transaction.value },
          receipt.blockNumber,
        ),
      )
      .catch(() => null);
    return {
      status: 'failed',
      transactionHash: hash,
      blockExplorerUrl,
      receipt: receiptJson(receipt),
      error: `Transaction reverted: ${reason ?? 'reason unknown'}`,
    };
  }

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
   * Gives every transaction still pending past the end of its execute-and-wait to a receipt job
   * (transactions__track_pending); returns how many. Logged: a request's process died mid-wait.
   */
  async trackOverdue(): Promise<number> {
    const handed = await this.deps.transactions.handOver('overdue');
    if (handed > 0) {
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
  private async recordReceipt(chainId: number, receipt: TransactionReceipt): Promise<void> {
    const { firstAttempts } = this.deps;
    const leaseSeconds = firstAttempts.leaseSeconds();
    const deliveries = await this.deps.transactions.recordReceipt(chainId, receipt, {
      checkAfter: new Date(Date.now() + RECEIPT_CHECK_INTERVAL_MS),
      firstAttemptSeconds: leaseSeconds,
    });
    if (leaseSeconds !== null) firstAttempts.start(deliveries);
  }

  /**
   * One check of a chain's recorded receipts above its finalized block (transactions__check_receipts):
   * a receipt whose block the chain replaced makes its transaction pending again, followed by its
   * receipt job until it is mined again (a new receipt, a new `transaction` event) or dropped, and
   * its nonce is held for it meanwhile. A block the node does not have (yet) is checked next time.
   * Scheduled again while receipts above the finalized block remain.
   */
  async checkReceipts(chainId: number): Promise<void> {
    const { chains, transactions, log, prisma } = this.deps;
    const chain = chains.byChainId(chainId);
    if (!chain) return;
    const head = await chains.withProvider(chain, (provider) => provider.getBlockNumber());
    const finalized = await chains.withProvider(chain, () => finalizedBlock(chain, head));
    const recorded = await transactions.receiptsAbove(chainId, finalized);
    if (recorded.length === 0) return;
    const blocks = [...new Set(recorded.map((receipt) => receipt.blockNumber))];
    const onChain = await chains.withProvider(chain, () => blockHeaders(chain, blocks));
    let replaced = 0;
    for (const receipt of recorded) {
      const header = onChain.get(receipt.blockNumber);
      if (!header || header.hash === receipt.blockHash) continue;
      const reopened = await transactions.reopen(chainId, receipt);
      if (!reopened) continue;
      replaced += 1;
      await markNonceBroadcast(this.deps.pool, {
        chainId,
        sender: reopened.sender,
        nonce: reopened.nonce,
        transactionHash: receipt.hash,
        ttlSeconds: this.deps.config.transactions.nonceReservationTtlSeconds,
      });
      log.warn(
        {
          chain: chain.name,
          hash: receipt.hash,
          block: receipt.blockNumber,
          was: receipt.blockHash,
          now: header.hash,
        },
        'transaction: its block was replaced by a reorganisation; pending again until mined or dropped',
      );
    }
    if (replaced < recorded.length) {
      await transactions.scheduleReceiptCheck(
        prisma,
        chainId,
        new Date(Date.now() + RECEIPT_CHECK_INTERVAL_MS),
        'preserve_run_at',
      );
    }
  }

  /** The chain replaced blocks (the indexer found it): its receipts are checked now. */
  async checkReceiptsNow(chain: Chain): Promise<void> {
    await this.deps.transactions.scheduleReceiptCheck(this.deps.prisma, chain.chainId, new Date(), 'replace');
  }

  /**
   * Makes what Laurel recorded agree with a chain again (on every start, and after the local chain
   * restarts): a transaction recorded as broadcast or mined that the node does not know, such as
   * one mined in blocks a crashed anvil did not save, or one a node dropped from its pool, is
   * marked `dropped`, its receipt job removed and its nonce freed, so the sender's next build uses
   * the chain's next nonce instead of waiting behind a gap. Pending rows younger than
   * TRANSACTION_DROP_AFTER_SECONDS are left to their receipt job. Returns the hashes marked dropped.
   */
  async reconcile(chain: Chain): Promise<string[]> {
    const { chains, transactions, log } = this.deps;
    const head = await chains.withProvider(chain, (provider) => provider.getBlockNumber());
    const rows = await transactions.unsettled(
      chain.chainId,
      head - RECONCILE_DEPTH_BLOCKS,
      new Date(Date.now() - this.deps.config.transactions.dropAfterSeconds * 1000),
    );
    const dropped: string[] = [];
    for (const row of rows) {
      const known = await chains.withProvider(chain, (provider) => provider.getTransaction(row.hash));
      if (known || !(await transactions.markDropped(chain.chainId, row.hash, row.status))) continue;
      this.deps.metrics?.transactionsDropped.inc({ chain: chain.name });
      dropped.push(row.hash);
      log.warn(
        {
          chain: chain.name,
          hash: row.hash,
          sender: row.fromAddress,
          nonce: Number(row.nonce),
          was: row.status,
        },
        'transaction unknown to the node: marked dropped, its nonce freed',
      );
    }
    await freeNoncesOf(this.deps.prisma, chain.chainId, dropped);
    return dropped;
  }

  /** reconcile() for every served chain; a chain that does not answer is skipped (and logged). */
  async reconcileAllChains(): Promise<void> {
    for (const chain of this.deps.chains.list()) {
      try {
        await this.reconcile(chain);
      } catch (error) {
        this.deps.log.warn(
          { chain: chain.name, err: (error as Error).message },
          'could not reconcile recorded transactions with the chain; will do on the next start',
        );
      }
    }
  }

  /** Transactions recorded as broadcast whose receipt is not recorded yet, per chain id (metrics). */
  pendingByChain(): Promise<Map<number, number>> {
    return this.deps.transactions.pendingByChain();
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
   * key, and sending it would act as the signer (rule 7 in src/chain/nonces.ts). That is refused
   * before anything is recorded or sent. It is recorded as the signer's (recovered from the signed
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
    // The record (which refuses a build of other wallets: rule 7 in src/chain/nonces.ts) and the
    // sender's next nonce do not wait on each other.
    const [record, nextNonce] = await Promise.allSettled([
      this.deps.transactions.record(chain, transaction, { requestId, followedUntil }),
      this.pendingNonce(chain, sender),
    ]);
    if (record.status === 'rejected') throw record.reason;
    const { recorded: recordedNow, refusedFor } = record.value;
    if (refusedFor) throw new SignerMismatchError(hash, sender, refusedFor, transaction.nonce);
    if (nextNonce.status === 'rejected') {
      if (recordedNow) await this.deps.transactions.unrecord(chain, hash);
      throw nextNonce.reason;
    }
    // Recorded first, so that parallel sends of consecutive nonces see each other as on their way.
    if (recordedNow) this.signals.notify(chain.chainId, sender);
    try {
      await this.refuseNonceGap(chain, transaction, nextNonce.value);
    } catch (error) {
      if (recordedNow) await this.deps.transactions.unrecord(chain, hash);
      throw error;
    }
    try {
      await this.deps.chains.withProvider(chain, (provider) =>
        provider.send('eth_sendRawTransaction', [input.signed_transaction]),
      );
    } catch (error) {
      if (error instanceof ChainUnavailableError && error.mayHaveArrived) {
        // The node may have taken it (timeout, reset, 5xx): the record and its receipt job stay,
        // and the job decides (mined, still pending, or dropped after dropAfterSeconds).
        await this.markBroadcast(sent);
        throw new ChainUnavailableError(
          chain.name,
          `${error.reason}; the transaction may have reached the node: Laurel keeps following it (sending it again is safe)`,
          true,
          { transactionHash: hash },
        );
      }
      const known =
        !(error instanceof AppError) &&
        (await this.deps.chains
          .withProvider(chain, (provider) => provider.getTransaction(hash))
          .catch(() => null));
      if (!known) {
        if (recordedNow) await this.deps.transactions.unrecord(chain, hash);
        throw error instanceof AppError
          ? error
          : rejectionOf(error, { hash, from: sender, nonce: transaction.nonce });
      }
    }
    // A transaction of the sender queued behind this one may be mined now.
    this.signals.notify(chain.chainId, sender);
    return sent;
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

  /**
   * A transaction above the sender's next nonce would wait in the node's queue behind the missing
   * ones (rule 4 in src/chain/nonces.ts). It goes on when every nonce before it is on the chain or
   * was just sent through Laurel (recorded, on its way: parallel sends of consecutive nonces).
   * Otherwise, once nothing has moved for NONCE_GAP_GRACE_MS, it is refused with the missing nonces
   * named, and their unsent reservations are freed for the next builds.
   */
  private async refuseNonceGap(chain: Chain, transaction: Transaction, firstNext: number): Promise<void> {
    const sender = transaction.from!;
    const inFlightSince = new Date(Date.now() - 2 * this.deps.config.rpcTimeoutMs);
    let accounted = -1;
    let graceEnds = 0;
    for (let next = firstNext; ; next = await this.pendingNonce(chain, sender)) {
      if (transaction.nonce <= next) return;
      const inFlight = await this.deps.transactions.countInFlight(
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
        throw new NonceGapError(transaction.hash!, sender, transaction.nonce, next);
      }
      await this.signals.wait(chain.chainId, sender, 100);
    }
  }

  /** What a successful receipt created; undefined (logged) when the node cannot tell now. */
  private async createdBy(chain: Chain, logs: readonly ReceiptLog[]): Promise<CreatedContracts | undefined> {
    try {
      return await this.deps.chains.withProvider(chain, (provider) =>
        createdContracts(provider, chain.factoryAddress, logs),
      );
    } catch (error) {
      this.deps.log.warn(
        { chain: chain.name, err: (error as Error).message },
        'could not check what the transaction created',
      );
      return undefined;
    }
  }

  /**
   * A transaction the caller sent through Laurel, as the chain has it now: mined (success or
   * failed, with its receipt, confirmations, decoded revert, what it created), pending, or dropped
   * (recorded so by the receipt job or the reconciliation). 404 for a hash the caller did not send.
   */
  async status(input: TransactionStatusInput, account: AuthenticatedAccount): Promise<TransactionState> {
    const sent = await this.sentTransaction(input, account);
    return this.stateOnChain(sent);
  }

  /**
   * The transaction's status as Laurel records it, now and at each change (transactionStatus
   * subscriptions): pending, then success or failed once its receipt is recorded (with what the
   * chain says of it then), pending again when a reorganisation took its block away, dropped.
   * Pushed when the status or block changes, not with each new confirmation.
   */
  statusChanges(
    input: TransactionStatusInput,
    account: AuthenticatedAccount,
    log: Logger,
  ): AsyncIterable<TransactionState> {
    return liveValues({
      read: async () => {
        const sent = await this.sentTransaction(input, account);
        const mined = sent.row.status === 'success' || sent.row.status === 'failed';
        return mined ? this.stateOnChain(sent) : this.recordedState(sent);
      },
      identity: (state) => `${state.status}:${state.blockNumber ?? ''}:${state.receipt?.blockHash ?? ''}`,
      watch: (wake) => this.deps.statusChanges.watch(input.hash, wake),
      minIntervalMs: 0,
      log,
    });
  }

  /** The caller's transaction with this hash, as recorded, and its chain; TransactionNotFoundError when none. */
  private async sentTransaction(input: TransactionStatusInput, account: AuthenticatedAccount) {
    const { chains, transactions } = this.deps;
    const served = input.chain === undefined ? chains.list() : [chains.get(input.chain)];
    const row = await transactions.findSent(
      account.address,
      input.hash,
      served.map((chain) => chain.chainId),
    );
    if (!row) throw new TransactionNotFoundError(input.hash, account.address);
    return { row, chain: chains.byChainId(row.chainId)! };
  }

  /** The transaction as its row has it, without its receipt: pending or dropped. */
  private recordedState({ row, chain }: SentTransaction): TransactionState {
    return {
      status: row.status === 'dropped' ? 'dropped' : 'pending',
      transactionHash: row.hash,
      blockExplorerUrl: this.deps.chains.transactionUrl(chain, row.hash),
      chain: chain.name,
      from: row.fromAddress,
      nonce: Number(row.nonce),
      confirmations: 0,
      blockNumber: null,
      sent_at: row.createdAt,
    };
  }

  /** The transaction as the chain has it now: its receipt (success or failed) if mined. */
  private async stateOnChain(sent: SentTransaction): Promise<TransactionState> {
    const { chains } = this.deps;
    const { row, chain } = sent;
    const [receipt, head] = await chains.withProvider(chain, (provider) =>
      Promise.all([provider.getTransactionReceipt(row.hash), provider.getBlockNumber()]),
    );
    const state = this.recordedState(sent);
    if (!receipt) return state;
    const mined = {
      ...state,
      confirmations: Math.max(0, head - receipt.blockNumber + 1),
      blockNumber: receipt.blockNumber,
      receipt: receiptJson(receipt),
    };
    if (receipt.status === 1) {
      return {
        ...mined,
        status: 'success',
        created: await this.createdBy(chain, receipt.logs),
      };
    }
    const reason = await chains
      .withProvider(chain, async (provider) => {
        const sent = await provider.getTransaction(row.hash);
        return sent && minedRevertReason(provider, sent, receipt.blockNumber);
      })
      .catch(() => null);
    return { ...mined, status: 'failed', error: `Transaction reverted: ${reason ?? 'reason unknown'}` };
  }

  /**
   * Frees the nonces of the caller's builds on the chain that were never sent (rule 6 in
   * src/chain/nonces.ts): the next build uses the chain's next nonce again.
   */
  async releaseReservations(
    input: ReleaseReservationsInput,
    account: AuthenticatedAccount,
  ): Promise<ReleasedReservations> {
    const chain = this.deps.chains.get(input.chain);
    const released = await releaseUnsentNonces(this.deps.prisma, {
      chainId: chain.chainId,
      sender: account.address,
      from: 0,
    });
    if (released.length > 0) {
      this.deps.log.info({ chain: chain.name, sender: account.address, released }, 'released unsent builds');
    }
    return { chain: chain.name, sender: account.address, released };
  }
}
