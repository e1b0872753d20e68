import type { Transaction, TransactionReceipt } from 'ethers';
import type { Pool } from 'pg';
import { buildCallHash, buildersOf } from './building/nonce-reservations';
import { receiptJson } from '../../chain/receipts';
import type { Chain } from '../../chain/registry';
import { Prisma, type PrismaClient, type SqlClient, type TransactionStatus } from '../../db/prisma';
import { jobs } from '../../jobs/jobs';
import type { ReceiptJob } from '../../jobs/tasks';
import { addJobCall, enqueueJob, jobWaitingCondition, removeJob, removeJobCall } from '../../jobs/queue';
import type { EnqueueWhen } from '../../jobs/queue';
import { webhookEventEmission } from '../webhooks/webhooks.repository';
import { runPrepared } from './prepared-statements';
import { notifyTransactionStatus, transactionStatusNotice } from './status/transaction-status-changes';

function trackReceiptJobKey(chainId: number, hash: string): string {
  return `${jobs.trackReceipt.name}:${chainId}:${hash}`;
}

/** Enqueues the transaction's receipt job under its key, its attempts anew (enqueueJob says when). */
async function enqueueReceiptJob(db: SqlClient, job: ReceiptJob, when: EnqueueWhen = {}): Promise<void> {
  const jobKey = trackReceiptJobKey(job.chainId, job.hash);
  await enqueueJob(db, jobs.trackReceipt, job, { jobKey, ...when });
}

function checkReceiptsJobKey(chainId: number): string {
  return `${jobs.checkReceipts.name}:${chainId}`;
}

/** A recorded receipt: the transaction's hash and the block it was mined in. */
export interface RecordedReceipt {
  hash: string;
  blockNumber: number;
  blockHash: string;
}

/** A pending transaction Laurel may send again (../sending/rebroadcaster.ts). */
export interface HeldTransaction {
  hash: string;
  sender: string;
  nonce: number;
  /** The bytes as sent (0x hex); null for rows recorded before Laurel kept them. */
  signedTransaction: string | null;
  /** How many times Laurel sent it again already. */
  rebroadcasts: number;
  recordedAt: Date;
  /** The request that broadcast it (its receipt job's log lines carry it). */
  requestId?: string;
}

/** The `transactions` rows: every write to them goes through here. */
export class TransactionsRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** The pool under `prisma`: the send path's statements go through it by name (runPrepared). */
    private readonly pool: Pool,
  ) {}

  /**
   * Inserts the row of a signed transaction and sends its status notice, in one statement, unless
   * Laurel built that very call with that nonce for other wallets only (rule 7 in
   * ./building/nonce-reservations.ts: signed with the wrong key); `refusedFor` is then the wallet it was built
   * for (the latest build's), else null. `recorded` is false when it was refused or already
   * recorded (a rebroadcast keeps the first row). `signedTransaction`, the bytes as sent, is kept
   * for Laurel to send again should the node lose the transaction (../sending/rebroadcaster.ts).
   * Who follows its receipt: with `followedUntil`
   * (execute-and-wait), the sending request itself until then (handOver() or
   * transactions__track_pending give it to a receipt job if it is still pending past that);
   * without (execute), a receipt job enqueued in the same statement. The row is the signer's
   * account's, whoever sent it: its status, subscriptions and webhook events are the signer's.
   */
  async record(
    chain: Chain,
    transaction: Transaction,
    sent: { requestId: string; followedUntil: Date | null; signedTransaction: string },
  ): Promise<{ recorded: boolean; refusedFor: string | null }> {
    const { requestId, followedUntil, signedTransaction } = sent;
    const hash = transaction.hash!;
    const signer = transaction.from!;
    // Laurel builds no contract creations: a transaction without `to` has no call hash, so no
    // builders. The same expression either way: a prepared statement's name stands for one text.
    const builders = buildersOf({
      chainId: chain.chainId,
      nonce: transaction.nonce,
      callHash: transaction.to ? buildCallHash(transaction.to, transaction.data) : null,
    });
    // The LATERAL calls run once per row inserted: none for a transaction refused or already recorded.
    const [row] = await runPrepared<{ recorded: number; refused_for: string | null }>(
      this.pool,
      'laurel-record-transaction',
      Prisma.sql`
      WITH built AS (
        SELECT CASE WHEN cardinality(b) > 0 AND NOT ${signer}::text = ANY(b) THEN b[1] END AS refused_for
          FROM (SELECT ${builders} AS b) AS builders
      ), recorded AS (
        INSERT INTO transactions (account_address, chain_id, chain_name, hash, from_address, to_address, nonce,
                                  request_id, track_from, signed_transaction)
        SELECT ${signer}, ${chain.chainId}, ${chain.name}, ${hash}, ${signer}, ${transaction.to},
               ${BigInt(transaction.nonce)}, ${requestId}, ${followedUntil}::timestamptz,
               decode(substr(${signedTransaction}::text, 3), 'hex')
          FROM built
         WHERE built.refused_for IS NULL
        ON CONFLICT (chain_id, hash) DO NOTHING
        RETURNING 1
      ), followed AS (
        SELECT 1
          FROM recorded,
               LATERAL (SELECT ${transactionStatusNotice(chain.chainId, hash)}) AS notice
          LEFT JOIN LATERAL (
               SELECT ${addJobCall(
                 jobs.trackReceipt,
                 { chainId: chain.chainId, hash, requestId },
                 { jobKey: trackReceiptJobKey(chain.chainId, hash) },
               )}
                WHERE ${followedUntil}::timestamptz IS NULL) AS tracking ON true
      )
      SELECT (SELECT count(*) FROM followed)::int AS recorded, built.refused_for FROM built`,
    );
    return { recorded: row!.recorded > 0, refusedFor: row!.refused_for };
  }

  /**
   * Gives transactions still pending past the end of their execute-and-wait (record()'s
   * `followedUntil`) to receipt jobs, in one database transaction: every such transaction whose
   * time has passed (`overdue`: its request's process died, or the database failed as the receipt
   * was recorded), every pending one (`all`: after an outage, at a worker's start; a receipt job
   * already waiting is made due now), or this one whatever the time (its wait timed out). Returns
   * how many, and how many of them were past the end of their wait.
   */
  async handOver(
    which: 'overdue' | 'all' | { chainId: number; hash: string },
  ): Promise<{ handed: number; overdue: number }> {
    const only =
      which === 'overdue'
        ? Prisma.sql`track_from <= now()`
        : which === 'all'
          ? Prisma.sql`true`
          : Prisma.sql`track_from IS NOT NULL AND chain_id = ${which.chainId} AND hash = ${which.hash}`;
    return this.prisma.$transaction(async (db) => {
      const due = await db.$queryRaw<
        { chain_id: number; hash: string; request_id: string | null; overdue: boolean }[]
      >`
        UPDATE transactions AS t SET track_from = NULL
          FROM (SELECT chain_id, hash, track_from <= now() AS overdue FROM transactions
                 WHERE status = 'pending' AND ${only} FOR UPDATE) AS was
         WHERE t.chain_id = was.chain_id AND t.hash = was.hash
        RETURNING t.chain_id, t.hash, t.request_id, coalesce(was.overdue, false) AS overdue`;
      for (const row of due) {
        await enqueueReceiptJob(db, {
          chainId: row.chain_id,
          hash: row.hash,
          requestId: row.request_id ?? undefined,
        });
      }
      return { handed: due.length, overdue: due.filter((row) => row.overdue).length };
    });
  }

  /** Undoes record() for a transaction the node refused: it never existed on chain. */
  async unrecord(chain: Chain, hash: string): Promise<void> {
    await this.prisma.$transaction(async (db) => {
      const { count } = await db.transaction.deleteMany({
        where: { chainId: chain.chainId, hash, status: 'pending' },
      });
      if (count > 0) await notifyTransactionStatus(db, chain.chainId, hash);
      await removeJob(db, trackReceiptJobKey(chain.chainId, hash));
    });
  }

  /**
   * Writes a receipt's outcome (and its block) on the transaction's row and, in the same
   * statement, emits the account's `transaction` webhook event, sends the status notice, removes
   * the receipt-tracking job and schedules the check of the chain's receipts against
   * reorganisations at `checkAfter` (unless a check already waits to run after this commits). Only
   * the update that moves the row out of `pending` records (and emits): execute-and-wait and the
   * receipt job may both get the receipt, and the event is sent once per receipt. One round trip:
   * execute-and-wait records a receipt per call. Returns the event's deliveries (none when this
   * call did not record); with `firstAttemptSeconds` their first attempts are the caller's
   * (FirstAttempts), without it their jobs are enqueued.
   */
  async recordReceipt(
    chainId: number,
    receipt: TransactionReceipt,
    options: { checkAfter: Date; firstAttemptSeconds: number | null },
  ): Promise<bigint[]> {
    const { checkAfter, firstAttemptSeconds } = options;
    const payload = receiptJson(receipt) as Prisma.InputJsonObject;
    const checkKey = checkReceiptsJobKey(chainId);
    // A check that waits at least a second more runs after this statement commits, and sees the
    // receipt: enqueueing it again would only queue this statement behind the others on its row.
    const waitingCheck = jobWaitingCondition(checkKey, new Date(Date.now() + 1000));
    const rows = await runPrepared<{ deliveries: string[] }>(
      this.pool,
      'laurel-record-receipt',
      Prisma.sql`
      WITH recorded AS (
        UPDATE transactions
           SET status = ${receipt.status === 1 ? 'success' : 'failed'}::transaction_status,
               block_number = ${BigInt(receipt.blockNumber)}, block_hash = ${receipt.blockHash},
               receipt = ${JSON.stringify(payload)}::jsonb, track_from = NULL, updated_at = now()
         WHERE chain_id = ${chainId} AND hash = ${receipt.hash} AND status = 'pending'
        RETURNING account_address, request_id
      )
      SELECT event.deliveries
        FROM recorded,
             LATERAL (SELECT ${webhookEventEmission({
               accountAddress: Prisma.sql`recorded.account_address`,
               event: 'transaction',
               payload,
               requestId: Prisma.sql`recorded.request_id`,
               firstAttemptSeconds,
             })} AS deliveries) AS event,
             LATERAL (SELECT ${transactionStatusNotice(chainId, receipt.hash)}) AS notice,
             LATERAL (SELECT ${removeJobCall(trackReceiptJobKey(chainId, receipt.hash))}) AS tracking
        LEFT JOIN LATERAL (
             SELECT ${addJobCall(jobs.checkReceipts, { chainId }, { jobKey: checkKey, runAt: checkAfter, jobKeyMode: 'preserve_run_at' })}
              WHERE NOT ${waitingCheck}) AS checking ON true`,
    );
    return (rows[0]?.deliveries ?? []).map(BigInt);
  }

  /**
   * Schedules the chain's receipt check (one job per chain) at `runAt`: `preserve_run_at` leaves
   * a check already due earlier as it is, `replace` moves it (to run it now).
   */
  async scheduleReceiptCheck(
    db: SqlClient,
    chainId: number,
    runAt: Date,
    mode: 'replace' | 'preserve_run_at',
  ): Promise<void> {
    await enqueueJob(
      db,
      jobs.checkReceipts,
      { chainId },
      { jobKey: checkReceiptsJobKey(chainId), runAt, jobKeyMode: mode },
    );
  }

  /** The recorded receipts of the chain in blocks above `finalized` (a reorganisation may still take them away). */
  async receiptsAbove(chainId: number, finalized: number): Promise<RecordedReceipt[]> {
    const rows = await this.prisma.transaction.findMany({
      where: {
        chainId,
        status: { in: ['success', 'failed'] },
        blockNumber: { gt: BigInt(finalized) },
        blockHash: { not: null },
      },
      select: { hash: true, blockNumber: true, blockHash: true },
    });
    return rows.map((row) => ({
      hash: row.hash,
      blockNumber: Number(row.blockNumber),
      blockHash: row.blockHash!,
    }));
  }

  /**
   * A recorded receipt whose block the chain replaced: the transaction is pending again (receipt
   * and block cleared), its receipt job enqueued anew, in one database transaction. Returns the
   * transaction's sender and nonce, or null when the row had moved on meanwhile.
   */
  async reopen(chainId: number, receipt: RecordedReceipt): Promise<{ sender: string; nonce: bigint } | null> {
    return this.prisma.$transaction(async (db) => {
      // updated_at: the time it is pending since (pendingTimes).
      const [row] = await db.$queryRaw<{ from_address: string; nonce: bigint }[]>`
        UPDATE transactions
           SET status = 'pending', block_number = NULL, block_hash = NULL, receipt = NULL, updated_at = now()
         WHERE chain_id = ${chainId} AND hash = ${receipt.hash} AND block_hash = ${receipt.blockHash}
           AND status IN ('success', 'failed')
        RETURNING from_address, nonce`;
      if (!row) return null;
      await notifyTransactionStatus(db, chainId, receipt.hash);
      await enqueueReceiptJob(db, { chainId, hash: receipt.hash });
      return { sender: row.from_address, nonce: row.nonce };
    });
  }

  /**
   * A transaction the node does not know and Laurel does not send again (refused by the node, or
   * lost with the chain's state): status `dropped` with `reason` (if it still has the status
   * `was`), receipt job removed. True when this call changed the row.
   */
  async markDropped(chainId: number, hash: string, was: TransactionStatus, reason: string): Promise<boolean> {
    return this.prisma.$transaction(async (db) => {
      const { count } = await db.transaction.updateMany({
        where: { chainId, hash, status: was },
        data: { status: 'dropped', trackFrom: null, droppedReason: reason },
      });
      if (count > 0) await notifyTransactionStatus(db, chainId, hash);
      await removeJob(db, trackReceiptJobKey(chainId, hash));
      return count > 0;
    });
  }

  /**
   * The pending transactions among `hashes` whose signed bytes Laurel holds (or null), to send
   * again, by sender then nonce: a sender's lower nonces first.
   */
  async held(chainId: number, hashes: readonly string[]): Promise<HeldTransaction[]> {
    return this.heldWhere({ chainId, hash: { in: [...hashes] }, status: 'pending' });
  }

  /** The sender's pending transactions above `nonce`, as held() reads them: those it holds up. */
  async heldAbove(chainId: number, sender: string, nonce: number): Promise<HeldTransaction[]> {
    return this.heldWhere({ chainId, fromAddress: sender, nonce: { gt: BigInt(nonce) }, status: 'pending' });
  }

  private async heldWhere(where: Prisma.TransactionWhereInput): Promise<HeldTransaction[]> {
    const rows = await this.prisma.transaction.findMany({
      where,
      select: {
        hash: true,
        fromAddress: true,
        nonce: true,
        signedTransaction: true,
        rebroadcasts: true,
        createdAt: true,
        requestId: true,
      },
      orderBy: [{ fromAddress: 'asc' }, { nonce: 'asc' }],
    });
    return rows.map((row) => ({
      hash: row.hash,
      sender: row.fromAddress,
      nonce: Number(row.nonce),
      signedTransaction: row.signedTransaction
        ? `0x${Buffer.from(row.signedTransaction).toString('hex')}`
        : null,
      rebroadcasts: row.rebroadcasts,
      recordedAt: row.createdAt,
      ...(row.requestId ? { requestId: row.requestId } : {}),
    }));
  }

  /**
   * Laurel sent the transaction again and the node took it: counted, whatever the row says by now
   * (the node can mine it, and a receipt be recorded, before this runs). Still pending: pending since
   * now (the drop timer starts again), and a receipt job follows it afresh (its attempts anew). In
   * one database transaction; true when a receipt job follows it.
   */
  async markRebroadcast(chainId: number, hash: string): Promise<boolean> {
    return this.prisma.$transaction(async (db) => {
      const rows = await db.$queryRaw<{ request_id: string | null; status: string }[]>`
        UPDATE transactions
           SET rebroadcasts = rebroadcasts + 1, rebroadcast_at = now(), updated_at = now(),
               track_from = CASE WHEN status = 'pending' THEN NULL ELSE track_from END
         WHERE chain_id = ${chainId} AND hash = ${hash}
        RETURNING request_id, status`;
      if (rows.length === 0) return false;
      await notifyTransactionStatus(db, chainId, hash);
      const { request_id: requestId, status } = rows[0];
      if (status !== 'pending') return false;
      await enqueueReceiptJob(db, { chainId, hash, requestId: requestId ?? undefined });
      return true;
    });
  }

  /** The transaction's receipt job runs next at `runAt`, its attempts anew (instead of after its backoff). */
  async trackReceiptAt(job: ReceiptJob, runAt: Date, onlyMovingUp = false): Promise<void> {
    await enqueueReceiptJob(this.prisma, job, { runAt, onlyMovingUp });
  }

  /**
   * The sender's transactions with nonces `from` (inclusive) to `to` (exclusive) that went through
   * Laurel, whose signed bytes it holds, and that it still records as pending or mined although the
   * chain's next nonce is below them: the chain (a reorganisation, the node's pool) dropped them,
   * and Laurel sends them again while it has attempts left (`maxRebroadcasts`).
   */
  async droppedByTheChain(
    chainId: number,
    sender: string,
    from: number,
    to: number,
    maxRebroadcasts: number,
  ): Promise<{ nonce: number; transactionHash: string }[]> {
    const rows = await this.prisma.transaction.findMany({
      where: {
        chainId,
        fromAddress: sender,
        nonce: { gte: BigInt(from), lt: BigInt(to) },
        status: { in: ['pending', 'success', 'failed'] },
        signedTransaction: { not: null },
        rebroadcasts: { lt: maxRebroadcasts },
      },
      select: { nonce: true, hash: true },
      orderBy: { nonce: 'asc' },
      take: 100,
    });
    return rows.map((row) => ({ nonce: Number(row.nonce), transactionHash: row.hash }));
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
    const [row] = await runPrepared<{ count: number }>(
      this.pool,
      'laurel-count-in-flight',
      Prisma.sql`
      SELECT count(DISTINCT nonce)::integer AS count FROM transactions
       WHERE chain_id = ${chainId} AND from_address = ${sender} AND status = 'pending'
         AND nonce >= ${BigInt(from)} AND nonce < ${BigInt(to)} AND created_at > ${since}`,
    );
    return row.count;
  }

  /**
   * The transaction with this hash that the account signed and that went through Laurel on one of
   * `chainIds` (the latest sent), or null: another account's transaction is not found, even for
   * the account whose key sent it. One probe of the
   * (chain_id, hash) key per chain.
   */
  findSent(accountAddress: string, hash: string, chainIds: number[]) {
    return this.prisma.transaction.findFirst({
      where: { accountAddress, hash, chainId: { in: chainIds } },
      orderBy: { createdAt: 'desc' },
    });
  }

  /**
   * A page of the account's transactions, newest first (ties: the later recorded first), and how
   * many match: read through the (account_address, created_at, id) index, backwards.
   */
  async listSent(
    accountAddress: string,
    filters: { chainIds: number[]; status?: TransactionStatus; sender?: string },
    offset: number,
    pageSize: number,
  ) {
    const where = {
      accountAddress,
      chainId: { in: filters.chainIds },
      status: filters.status,
      fromAddress: filters.sender,
    };
    const [total, rows] = await Promise.all([
      this.prisma.transaction.count({ where }),
      this.prisma.transaction.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: offset,
        take: pageSize,
      }),
    ]);
    return { total, rows };
  }

  /**
   * When the transaction was recorded (null if it is not), and since when it is pending: since its
   * record, or since a reorganisation took its receipt away (a pending row's last update).
   */
  async pendingTimes(
    chainId: number,
    hash: string,
  ): Promise<{ recordedAt: Date; pendingSince: Date } | null> {
    const row = await this.prisma.transaction.findUnique({
      where: { chainId_hash: { chainId, hash } },
      select: { createdAt: true, updatedAt: true },
    });
    return row && { recordedAt: row.createdAt, pendingSince: row.updatedAt };
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
      select: { hash: true, status: true, fromAddress: true, nonce: true, updatedAt: true },
      orderBy: { id: 'asc' },
    });
  }
}

/** Transactions recorded as broadcast whose receipt is not recorded yet, per chain id (a metric). */
export async function pendingByChain(prisma: PrismaClient): Promise<Map<number, number>> {
  const rows = await prisma.transaction.groupBy({
    by: ['chainId'],
    where: { status: 'pending' },
    _count: { _all: true },
  });
  return new Map(rows.map((row) => [row.chainId, row._count._all]));
}
