import { receiptJson } from '../../../chain/receipts';
import type { Chain } from '../../../chain/registry';
import type { Logger } from '../../../logger';
import type { ReceiptTracker } from '../following/receipt-tracker';
import { liveValues } from '../../../operations/live';
import type { AuthenticatedAccount } from '../../../operations/request-context';
import { createdBy, revertError } from '../mined-outcomes';
import type { TransactionsDeps } from '../transactions.deps';
import { TransactionNotFoundError } from '../transactions.failures';
import type { TransactionsRepository } from '../transactions.repository';
import { pageOf } from '../../../validation';
import {
  DEFAULT_TRANSACTIONS_PAGE_SIZE,
  type ListTransactionsInput,
  type TransactionStatusInput,
} from '../transactions.schema';
import type { TransactionPage, TransactionState } from '../transactions.types';

/** A transaction the caller sent, as recorded, and its chain. */
interface SentTransaction {
  row: NonNullable<Awaited<ReturnType<TransactionsRepository['findSent']>>>;
  chain: Chain;
}

/** The status of transactions sent through Laurel: read now (status), and at each change (subscriptions). */
export class TransactionStatusReader {
  constructor(
    private readonly deps: TransactionsDeps,
    /** Records a receipt the row lacks (the receipt job's way of recording it). */
    private readonly receipts: ReceiptTracker,
  ) {}

  /**
   * A transaction the caller sent through Laurel, as the chain has it now: mined (success or
   * failed, with its receipt, confirmations, decoded revert, what it created), pending, or dropped
   * (recorded so by the receipt job or the reconciliation). 404 for a hash the caller did not send.
   * A mined transaction still pending in its row (its receipt job has not run yet, or could not
   * record it) is recorded before the answer, with its `transaction` event: what the answer says
   * mined, the events say too.
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

  /**
   * The caller's transactions (those its wallet signed, sent through Laurel by any of its keys), as
   * recorded, newest first, filtered and paged; on any chain Laurel serves unless `chain` names one.
   */
  async list(input: ListTransactionsInput, account: AuthenticatedAccount): Promise<TransactionPage> {
    const { chains, transactions } = this.deps;
    const { page, pageSize, offset } = pageOf(input, DEFAULT_TRANSACTIONS_PAGE_SIZE);
    // The rows of a chain no longer served stay out, as they do of transactionStatus.
    const served = input.chain === undefined ? chains.list() : [chains.get(input.chain)];
    const filters = {
      chainIds: served.map((chain) => chain.chainId),
      status: input.status,
      sender: input.sender,
    };
    const { total, rows } = await transactions.listSent(account.address, filters, offset, pageSize);
    const data = rows.map((row) => {
      const chain = chains.byChainId(row.chainId)!;
      return {
        transactionHash: row.hash,
        blockExplorerUrl: chains.transactionUrl(chain, row.hash),
        chain: chain.name,
        from: row.fromAddress,
        to: row.toAddress,
        nonce: Number(row.nonce),
        status: row.status,
        blockNumber: row.blockNumber === null ? null : Number(row.blockNumber),
        sent_at: row.createdAt,
      };
    });
    return { total, page, page_size: pageSize, data };
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

  /**
   * The transaction as its row has it, without its receipt: pending or dropped (with why), and
   * how often Laurel sent it again.
   */
  private recordedState({ row, chain }: SentTransaction): TransactionState {
    const dropped = row.status === 'dropped';
    return {
      status: dropped ? 'dropped' : 'pending',
      ...(dropped ? { error: `Dropped: ${row.droppedReason ?? 'the node no longer knew it'}` } : {}),
      transactionHash: row.hash,
      blockExplorerUrl: this.deps.chains.transactionUrl(chain, row.hash),
      chain: chain.name,
      from: row.fromAddress,
      nonce: Number(row.nonce),
      confirmations: 0,
      blockNumber: null,
      sent_at: row.createdAt,
      rebroadcasts: row.rebroadcasts,
      rebroadcast_at: row.rebroadcastAt,
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
    if (row.status === 'pending') await this.receipts.recordReceipt(chain.chainId, receipt);
    const mined = {
      ...state,
      // Mined after all (sent again by other means): not dropped.
      error: undefined,
      confirmations: Math.max(0, head - receipt.blockNumber + 1),
      blockNumber: receipt.blockNumber,
      receipt: receiptJson(receipt),
    };
    if (receipt.status === 1) {
      return {
        ...mined,
        status: 'success',
        created: await createdBy(chains, this.deps.log, chain, receipt.logs),
      };
    }
    const error = await revertError(chains, chain, receipt, (provider) => provider.getTransaction(row.hash));
    return { ...mined, status: 'failed', error };
  }
}
