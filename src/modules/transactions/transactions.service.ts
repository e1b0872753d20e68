import { Transaction } from 'ethers';
import { rejectionOf } from '../../chain/node-rejections';
import { markNonceBroadcast } from '../../chain/nonces';
import { receiptJson, waitForReceipt, type ReceiptJson } from '../../chain/receipts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { Config } from '../../config';
import type { AuthenticatedAccount } from '../../context';
import type { PrismaClient } from '../../db/prisma';
import { AppError, ValidationError } from '../../errors';
import type { Indexer } from '../../indexer/indexer';
import type { ExecuteTransactionInput } from './transactions.schema';
import type { TransactionsRepository } from './transactions.repository';

/** What execute and execute-and-wait answer (REST body and GraphQL object alike). */
export interface ExecutionOutcome {
  status: 'success' | 'failed';
  transactionHash: string;
  blockExplorerUrl: string;
  receipt?: ReceiptJson;
  /** Only on a timeout: 'Timeout'. */
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
    if (receipt.status === 1) await this.deps.indexer.ingestReceipt(chain, receipt);
    return {
      status: receipt.status === 1 ? 'success' : 'failed',
      transactionHash: hash,
      blockExplorerUrl,
      receipt: receiptJson(receipt),
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
   * rejects is un-recorded.
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
    try {
      await this.deps.chains.call(chain, (provider) =>
        provider.send('eth_sendRawTransaction', [input.signed_transaction]),
      );
    } catch (error) {
      const known =
        !(error instanceof AppError) &&
        (await this.deps.chains.call(chain, (provider) => provider.getTransaction(hash)).catch(() => null));
      if (!known) {
        if (recordedNow) await this.deps.transactions.unrecord(chain, hash);
        throw error instanceof AppError ? error : rejectionOf(error, hash);
      }
    }
    // Keeps the nonce's reservation (if it was built here) from being handed out again meanwhile.
    await markNonceBroadcast(this.deps.prisma, {
      chainId: chain.chainId,
      sender: transaction.from!,
      nonce: transaction.nonce,
      transactionHash: hash,
      ttlSeconds: this.deps.config.transactions.nonceReservationTtlSeconds,
    });
    return { chain, hash };
  }
}
