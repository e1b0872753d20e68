import type { Transaction, TransactionReceipt } from 'ethers';
import { receiptJson } from '../../chain/receipts';
import type { Chain } from '../../chain/registry';
import type { Prisma, PrismaClient, TransactionStatus } from '../../db/prisma';
import { jobs } from '../../jobs/jobs';
import { enqueueJob, removeJob } from '../../jobs/queue';
import { emitWebhookEvent } from '../webhooks/webhooks.repository';

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

  /**
   * Writes a receipt's outcome on the transaction's row and, in the same database transaction,
   * emits the account's `transaction` webhook event. Only the update that moves the row out of
   * `pending` records (and emits): execute-and-wait and the receipt job may both get the receipt,
   * and the event is sent once.
   */
  async recordReceipt(chainId: number, receipt: TransactionReceipt): Promise<void> {
    const payload = receiptJson(receipt) as Prisma.InputJsonObject;
    await this.prisma.$transaction(async (db) => {
      const recorded = await db.transaction.updateManyAndReturn({
        where: { chainId, hash: receipt.hash, status: 'pending' },
        data: {
          status: receipt.status === 1 ? 'success' : 'failed',
          blockNumber: BigInt(receipt.blockNumber),
          receipt: payload,
        },
        select: { accountAddress: true },
      });
      for (const { accountAddress } of recorded) {
        await emitWebhookEvent(db, { accountAddress, event: 'transaction', payload });
      }
    });
  }

  /**
   * A transaction the node does not know (never mined, dropped from its pool, or lost with the
   * chain's state): status `dropped` (if it still has the status `was`), receipt job removed. True
   * when this call changed the row.
   */
  async markDropped(chainId: number, hash: string, was: TransactionStatus = 'pending'): Promise<boolean> {
    return this.prisma.$transaction(async (db) => {
      const { count } = await db.transaction.updateMany({
        where: { chainId, hash, status: was },
        data: { status: 'dropped' },
      });
      await removeJob(db, trackReceiptJobKey(chainId, hash));
      return count > 0;
    });
  }

  /**
   * How many of the sender's nonces `from` (inclusive) to `to` (exclusive) belong to transactions
   * recorded as pending since `since`: sent through Laurel a moment ago, on their way to the node.
   */
  async countInFlight(
    chainId: number,
    sender: string,
    from: number,
    to: number,
    since: Date,
  ): Promise<number> {
    const rows = await this.prisma.transaction.findMany({
      where: {
        chainId,
        fromAddress: sender,
        status: 'pending',
        nonce: { gte: BigInt(from), lt: BigInt(to) },
        createdAt: { gt: since },
      },
      distinct: ['nonce'],
      select: { nonce: true },
    });
    return rows.length;
  }

  /**
   * The transaction with this hash that the account sent through Laurel on one of `chainIds` (the
   * latest sent), or null: another account's transaction is not found. One probe of the
   * (chain_id, hash) key per chain.
   */
  findSent(accountAddress: string, hash: string, chainIds: number[]) {
    return this.prisma.transaction.findFirst({
      where: { accountAddress, hash, chainId: { in: chainIds } },
      orderBy: { createdAt: 'desc' },
    });
  }

  /** When the transaction was recorded (null if it is not). */
  async recordedAt(chainId: number, hash: string): Promise<Date | null> {
    const row = await this.prisma.transaction.findUnique({
      where: { chainId_hash: { chainId, hash } },
      select: { createdAt: true },
    });
    return row?.createdAt ?? null;
  }

  /**
   * The rows to check against the node when reconciling a chain: pending ones recorded before
   * `recordedBefore` (younger ones may still be on their way to the node) and mined ones above
   * block `minBlock` (deeper ones are final).
   */
  unsettled(chainId: number, minBlock: number, recordedBefore: Date) {
    return this.prisma.transaction.findMany({
      where: {
        chainId,
        OR: [
          { status: 'pending', createdAt: { lt: recordedBefore } },
          { status: { in: ['success', 'failed'] }, blockNumber: { gt: BigInt(minBlock) } },
        ],
      },
      select: { hash: true, status: true, fromAddress: true, nonce: true },
      orderBy: { id: 'asc' },
    });
  }

  /** Transactions recorded as broadcast whose receipt is not recorded yet, per chain id. */
  async pendingByChain(): Promise<Map<number, number>> {
    const rows = await this.prisma.transaction.groupBy({
      by: ['chainId'],
      where: { status: 'pending' },
      _count: { _all: true },
    });
    return new Map(rows.map((row) => [row.chainId, row._count._all]));
  }
}
