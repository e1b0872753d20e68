import { Transaction, type TransactionReceipt } from 'ethers';
import { nodeMessageOf } from '../../chain/rpc-errors';
import { markNonceBroadcast } from '../../chain/nonces';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { Config } from '../../config';
import type { AuthenticatedAccount } from '../../context';
import type { Prisma, PrismaClient } from '../../db/prisma';
import { AppError, ValidationError } from '../../errors';
import { enqueueJob, removeJob } from '../../jobs/queue';
import type { ExecuteTransactionInput } from './transactions.schema';

/** The graphile-worker task that waits for a broadcast transaction's receipt and records it. */
export const TRACK_RECEIPT_TASK = 'transactions__track_receipt';
/** graphile-worker retries a not-yet-mined transaction with exponential backoff, this many times. */
export const TRACK_RECEIPT_MAX_ATTEMPTS = 20;

export function trackReceiptJobKey(chainId: number, hash: string): string {
  return `${TRACK_RECEIPT_TASK}:${chainId}:${hash}`;
}

/** The receipt as the interface shows it: ethers' `TransactionReceipt.toJSON()`, as plain JSON. */
export type ReceiptJson = Record<string, unknown>;

/** What execute and execute-and-wait answer (REST body and GraphQL object alike). */
export interface ExecutionOutcome {
  status: 'success' | 'failed';
  transactionHash: string;
  blockExplorerUrl: string;
  receipt?: ReceiptJson;
  /** Only on a timeout: 'Timeout'. */
  error?: string;
}

/**
 * A node refused a signed transaction (eth_sendRawTransaction). Rendered as Shape A:
 * `{status:'failed', error:<the node's message>, reason:<code>, transactionHash}`, never a 500
 * (GraphQL: extensions.code is the code in capitals).
 */
export class TransactionRejectedError extends AppError {
  constructor(code: string, nodeMessage: string, httpStatus: number, transactionHash: string) {
    super(code, nodeMessage, httpStatus, { reason: code, transactionHash });
  }
}

const REJECTIONS: { pattern: RegExp; code: string; status: number }[] = [
  { pattern: /nonce too low|nonce has already been used|old nonce/i, code: 'nonce_too_low', status: 409 },
  { pattern: /nonce too high|nonce gap/i, code: 'nonce_too_high', status: 409 },
  {
    pattern: /replacement.*underpriced|replacement fee too low/i,
    code: 'replacement_underpriced',
    status: 409,
  },
  { pattern: /insufficient funds/i, code: 'insufficient_funds', status: 422 },
  { pattern: /intrinsic gas|gas limit|out of gas/i, code: 'gas_limit_rejected', status: 422 },
  { pattern: /fee cap|base fee|underpriced|tip/i, code: 'fee_too_low', status: 422 },
  { pattern: /signature|sender|signer|chain id/i, code: 'invalid_signature', status: 422 },
];

export function rejectionOf(error: unknown, transactionHash: string): TransactionRejectedError {
  const message = nodeMessageOf(error, 'transaction rejected');
  const known = REJECTIONS.find((rejection) => rejection.pattern.test(message));
  return new TransactionRejectedError(
    known?.code ?? 'transaction_rejected',
    message,
    known?.status ?? 422,
    transactionHash,
  );
}

export function receiptJson(receipt: TransactionReceipt): ReceiptJson {
  return JSON.parse(JSON.stringify(receipt.toJSON())) as ReceiptJson;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls for a transaction's receipt until it has the chain's confirmations or `timeoutMs` passes
 * (null then). Node errors while waiting count as "not yet": the transaction is already out.
 */
export async function waitForReceipt(
  chains: ChainRegistry,
  chain: Chain,
  hash: string,
  timeoutMs: number,
): Promise<TransactionReceipt | null> {
  const deadline = Date.now() + timeoutMs;
  let delay = 50;
  for (;;) {
    try {
      const receipt = await chains.call(chain, (provider) => provider.getTransactionReceipt(hash));
      if (receipt && (chain.confirmations <= 1 || (await receipt.confirmations()) >= chain.confirmations)) {
        return receipt;
      }
    } catch {
      // unreachable node or timeout: keep waiting until the deadline
    }
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, 500);
  }
}

/** Writes a receipt's outcome on the transaction's row. */
export async function recordReceipt(
  prisma: PrismaClient,
  chainId: number,
  receipt: TransactionReceipt,
): Promise<void> {
  await prisma.transaction.updateMany({
    where: { chainId, hash: receipt.hash },
    data: {
      status: receipt.status === 1 ? 'success' : 'failed',
      blockNumber: BigInt(receipt.blockNumber),
      receipt: receiptJson(receipt) as Prisma.InputJsonValue,
    },
  });
}

export interface TransactionsServiceDeps {
  config: Config;
  prisma: PrismaClient;
  chains: ChainRegistry;
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
   * timeout `{status:'failed', error:'Timeout'}` (the job then follows the receipt).
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
    await recordReceipt(this.deps.prisma, chain.chainId, receipt);
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
   * Sends the transaction and records it (with its receipt job, runnable from `trackFrom`). A
   * transaction the node already has (in its pool or mined) counts as sent: same hash, same row.
   */
  /**
   * Records the transaction (row and receipt-tracking job, one database transaction) before it
   * is broadcast: its hash is known from the signed bytes, so a crash or a database failure can
   * never leave a broadcast transaction unrecorded. A transaction the node rejects is un-recorded.
   */
  private async broadcast(
    input: ExecuteTransactionInput,
    account: AuthenticatedAccount,
    trackFrom: Date,
  ): Promise<{ chain: Chain; hash: string }> {
    const transaction = Transaction.from(input.signed_transaction);
    const chain = this.chainFor(input.chain, transaction);
    const hash = transaction.hash!;
    const recordedNow = await this.record(chain, transaction, account, trackFrom);
    try {
      await this.deps.chains.call(chain, (provider) =>
        provider.send('eth_sendRawTransaction', [input.signed_transaction]),
      );
    } catch (error) {
      const known =
        !(error instanceof AppError) &&
        (await this.deps.chains.call(chain, (provider) => provider.getTransaction(hash)).catch(() => null));
      if (!known) {
        if (recordedNow) await this.unrecord(chain, hash);
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

  /** Inserts the row and enqueues its tracking job; false when the transaction was already recorded. */
  private async record(
    chain: Chain,
    transaction: Transaction,
    account: AuthenticatedAccount,
    trackFrom: Date,
  ): Promise<boolean> {
    const hash = transaction.hash!;
    return this.deps.prisma.$transaction(async (db) => {
      // A rebroadcast keeps the first row (ON CONFLICT (chain_id, hash) DO NOTHING).
      const { count } = await db.transaction.createMany({
        data: [
          {
            accountAddress: account.address,
            chainId: chain.chainId,
            chainName: chain.name,
            hash,
            fromAddress: transaction.from!,
            toAddress: transaction.to,
            nonce: BigInt(transaction.nonce),
          },
        ],
        skipDuplicates: true,
      });
      if (count === 0) return false;
      await enqueueJob(
        db,
        TRACK_RECEIPT_TASK,
        { chainId: chain.chainId, hash },
        {
          jobKey: trackReceiptJobKey(chain.chainId, hash),
          runAt: trackFrom,
          maxAttempts: TRACK_RECEIPT_MAX_ATTEMPTS,
        },
      );
      return true;
    });
  }

  /** Undoes record() for a transaction the node refused: it never existed on chain. */
  private async unrecord(chain: Chain, hash: string): Promise<void> {
    await this.deps.prisma.$transaction(async (db) => {
      await db.transaction.deleteMany({ where: { chainId: chain.chainId, hash, status: 'pending' } });
      await removeJob(db, trackReceiptJobKey(chain.chainId, hash));
    });
  }
}
