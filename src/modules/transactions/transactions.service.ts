import { Transaction } from 'ethers';
import { rejectionOf } from '../../chain/node-rejections';
import {
  markNonceBroadcast,
  NONCE_GAP_GRACE_MS,
  NonceGapError,
  releaseUnsentNonces,
} from '../../chain/nonces';
import { minedRevertReason } from '../../chain/reverts';
import { receiptJson, waitForReceipt, type ReceiptJson } from '../../chain/receipts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { Config } from '../../config';
import type { AuthenticatedAccount } from '../../context';
import type { PrismaClient } from '../../db/prisma';
import { AppError, ChainUnavailableError, ValidationError } from '../../errors';
import type { Indexer } from '../../indexer/indexer';
import type { ExecuteTransactionInput } from './transactions.schema';
import type { TransactionsRepository } from './transactions.repository';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What execute and execute-and-wait answer (REST body and GraphQL object alike). */
export interface ExecutionOutcome {
  status: 'success' | 'failed';
  transactionHash: string;
  blockExplorerUrl: string;
  receipt?: ReceiptJson;
  /** 'Timeout' when the receipt did not come in time; `Transaction reverted: <reason>` when it reverted. */
  error?: string;
}

export interface TransactionsServiceDeps {
  config: Config;
  prisma: PrismaClient;
  chains: ChainRegistry;
  indexer: Pick<Indexer, 'ingestReceipt'>;
  transactions: TransactionsRepository;
}

/** Broadcasts signed transactions, records each one, and follows it to its receipt. */
export class TransactionsService {
  constructor(private readonly deps: TransactionsServiceDeps) {}

  /** Fire and forget: answers once the node accepted the transaction; a job follows the receipt. */
  async execute(input: ExecuteTransactionInput, account: AuthenticatedAccount): Promise<ExecutionOutcome> {
    const { chain, hash } = await this.broadcast(input, account, new Date());
    return {
      status: 'success',
      transactionHash: hash,
      blockExplorerUrl: this.deps.chains.transactionUrl(chain, hash),
    };
  }

  /**
   * Broadcasts, then waits for the receipt (config.transactions.executeWaitTimeoutSeconds and the
   * chain's confirmations). A reverted transaction answers `status: 'failed'` with its receipt; a
   * timeout `{status:'failed', error:'Timeout'}` (the job then follows the receipt). A successful
   * receipt's events are in the index before the answer (read-your-writes).
   */
  async executeAndWait(
    input: ExecuteTransactionInput,
    account: AuthenticatedAccount,
  ): Promise<ExecutionOutcome> {
    const timeoutMs = this.deps.config.transactions.executeWaitTimeoutSeconds * 1000;
    const { chain, hash } = await this.broadcast(input, account, new Date(Date.now() + timeoutMs));
    const blockExplorerUrl = this.deps.chains.transactionUrl(chain, hash);
    const receipt = await waitForReceipt(this.deps.chains, chain, hash, timeoutMs);
    if (!receipt) return { status: 'failed', error: 'Timeout', transactionHash: hash, blockExplorerUrl };
    await this.deps.transactions.recordReceipt(chain.chainId, receipt);
    if (receipt.status === 1) {
      await this.deps.indexer.ingestReceipt(chain, receipt);
      return { status: 'success', transactionHash: hash, blockExplorerUrl, receipt: receiptJson(receipt) };
    }
    const transaction = Transaction.from(input.signed_transaction);
    const reason = await this.deps.chains
      .call(chain, (provider) =>
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

  /**
   * Records the transaction (row and receipt-tracking job, runnable from `trackFrom`, one database
   * transaction) before it is broadcast: its hash is known from the signed bytes, so a crash or a
   * database failure can never leave a broadcast transaction unrecorded. A transaction the node
   * already has (in its pool or mined) counts as sent: same hash, same row. A transaction the node
   * rejects, or that is refused for a nonce gap, is un-recorded.
   */
  private async broadcast(
    input: ExecuteTransactionInput,
    account: AuthenticatedAccount,
    trackFrom: Date,
  ): Promise<{ chain: Chain; hash: string }> {
    const transaction = Transaction.from(input.signed_transaction);
    const chain = this.chainFor(input.chain, transaction);
    const hash = transaction.hash!;
    const recordedNow = await this.deps.transactions.record(chain, transaction, account.address, trackFrom);
    // Recorded first, so that parallel sends of consecutive nonces see each other as on their way.
    try {
      await this.refuseNonceGap(chain, transaction);
    } catch (error) {
      if (recordedNow) await this.deps.transactions.unrecord(chain, hash);
      throw error;
    }
    try {
      await this.deps.chains.call(chain, (provider) =>
        provider.send('eth_sendRawTransaction', [input.signed_transaction]),
      );
    } catch (error) {
      if (error instanceof ChainUnavailableError && error.mayHaveArrived) {
        // The node may have taken it (timeout, reset, 5xx): the record and its receipt job stay,
        // and the job decides (mined, still pending, or dropped after dropAfterSeconds).
        await this.markBroadcast(chain, transaction);
        throw new ChainUnavailableError(
          chain.name,
          `${error.reason}; the transaction may have reached the node: Laurel keeps following it (sending it again is safe)`,
          true,
          { transactionHash: hash },
        );
      }
      const known =
        !(error instanceof AppError) &&
        (await this.deps.chains.call(chain, (provider) => provider.getTransaction(hash)).catch(() => null));
      if (!known) {
        if (recordedNow) await this.deps.transactions.unrecord(chain, hash);
        throw error instanceof AppError ? error : rejectionOf(error, hash);
      }
    }
    await this.markBroadcast(chain, transaction);
    return { chain, hash };
  }

  /** Keeps the nonce's reservation (if it was built here) from being handed out again meanwhile. */
  private async markBroadcast(chain: Chain, transaction: Transaction): Promise<void> {
    await markNonceBroadcast(this.deps.prisma, {
      chainId: chain.chainId,
      sender: transaction.from!,
      nonce: transaction.nonce,
      transactionHash: transaction.hash!,
      ttlSeconds: this.deps.config.transactions.nonceReservationTtlSeconds,
    });
  }

  /**
   * A transaction above the sender's next nonce would wait in the node's queue behind the missing
   * ones (rule 4 in src/chain/nonces.ts). It goes on when every nonce before it is on the chain or
   * was just sent through Laurel (recorded, on its way: parallel sends of consecutive nonces).
   * Otherwise, once nothing has moved for NONCE_GAP_GRACE_MS, it is refused with the missing nonces
   * named, and their unsent reservations are freed for the next builds.
   */
  private async refuseNonceGap(chain: Chain, transaction: Transaction): Promise<void> {
    const sender = transaction.from!;
    const inFlightSince = new Date(Date.now() - 2 * this.deps.config.rpcTimeoutMs);
    let accounted = -1;
    let graceEnds = 0;
    for (;;) {
      const next = await this.deps.chains.call(chain, (provider) =>
        provider.getTransactionCount(sender, 'pending'),
      );
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
        throw new NonceGapError(transaction.hash!, transaction.nonce, next);
      }
      await sleep(100);
    }
  }
}
