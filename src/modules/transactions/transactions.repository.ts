import type { Transaction, TransactionReceipt } from 'ethers';
import { receiptJson } from '../../chain/receipts';
import type { Chain } from '../../chain/registry';
import type { Prisma, PrismaClient } from '../../db/prisma';
import { jobs } from '../../jobs/jobs';
import { enqueueJob, removeJob } from '../../jobs/queue';

function trackReceiptJobKey(chainId: number, hash: string): string {
  return `${jobs.trackReceipt.name}:${chainId}:${hash}`;
}

/** The `transactions` rows: every write to them goes through here. */
export class TransactionsRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * Inserts the row of a signed transaction and enqueues its receipt-tracking job (runnable from
   * `trackFrom`), in one database transaction; false when the transaction was already recorded
   * (a rebroadcast keeps the first row).
   */
  async record(
    chain: Chain,
    transaction: Transaction,
    accountAddress: string,
    trackFrom: Date,
  ): Promise<boolean> {
    const hash = transaction.hash!;
    return this.prisma.$transaction(async (db) => {
      const { count } = await db.transaction.createMany({
        data: [
          {
            accountAddress,
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
        jobs.trackReceipt,
        { chainId: chain.chainId, hash },
        { jobKey: trackReceiptJobKey(chain.chainId, hash), runAt: trackFrom },
      );
      return true;
    });
  }

  /** Undoes record() for a transaction the node refused: it never existed on chain. */
  async unrecord(chain: Chain, hash: string): Promise<void> {
    await this.prisma.$transaction(async (db) => {
      await db.transaction.deleteMany({ where: { chainId: chain.chainId, hash, status: 'pending' } });
      await removeJob(db, trackReceiptJobKey(chain.chainId, hash));
    });
  }

  /** Writes a receipt's outcome on the transaction's row. */
  async recordReceipt(chainId: number, receipt: TransactionReceipt): Promise<void> {
    await this.prisma.transaction.updateMany({
      where: { chainId, hash: receipt.hash },
      data: {
        status: receipt.status === 1 ? 'success' : 'failed',
        blockNumber: BigInt(receipt.blockNumber),
        receipt: receiptJson(receipt) as Prisma.InputJsonValue,
      },
    });
  }

  /** A transaction the node no longer knows and that never got a receipt: it will not be mined. */
  async markDropped(chainId: number, hash: string): Promise<void> {
    await this.prisma.transaction.updateMany({
      where: { chainId, hash, status: 'pending' },
      data: { status: 'failed' },
    });
  }
}
