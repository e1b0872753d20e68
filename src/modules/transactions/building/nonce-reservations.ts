import { createHash } from 'node:crypto';
import { checksumAddress } from '../../../addresses';
import type { Pool } from 'pg';
import { Prisma, type PrismaClient } from '../../../db/prisma';
import { KeyedBatches } from '../../../keyed-batches';
import { runPrepared } from '../prepared-statements';

/**
 * Nonce reservation
 * =================
 * Laurel builds unsigned transactions that callers sign and send later, possibly many at once for
 * the same sender. The node's pending nonce alone would hand the same nonce to every build made
 * before the first one is broadcast, so each nonce a build hands out is reserved in PostgreSQL
 * (table `nonce_reservations`, key (chain_id, sender, nonce)):
 *
 * 1. A build asks the node for the sender's pending nonce (`eth_getTransactionCount(sender,
 *    'pending')`: mined plus queued-in-the-pool transactions).
 * 2. In one database transaction (the SQL function laurel_reserve_nonces), serialised per
 *    (chain, sender) with
 *    `pg_advisory_xact_lock(hashtext(chain_id || ':' || sender))`:
 *    a. reservations the chain has passed (nonce < pending nonce) are deleted: those nonces are
 *       used, whoever sent them; when the node counts fewer than the last build saw (transactions
 *       dropped), the nonces in between that nothing holds are free again, unless this build's
 *       read began before the one that set that count (a stale read);
 *    b. reservations whose lease ran out (expires_at < now()) are deleted: their transaction was
 *       never sent (or was dropped by the node), so the nonce is free again;
 *    c. the smallest nonce >= pending nonce that is not reserved is handed out, so a reclaimed
 *       nonce fills its gap before later nonces are used and transactions never wait behind a
 *       hole for long;
 *    d. it is inserted with expires_at = now() + NONCE_RESERVATION_TTL_SECONDS.
 *    Found without reading the sender's reservations: a gap structure per sender (tables
 *    nonce_senders: where the nonces handed out end; free_nonces: the free ones below that, lowest
 *    taken first) and an index on expires_at for (b), so a build costs the same whether its sender
 *    holds ten reservations or a hundred thousand, live or lapsed (`prisma/functions/laurel_reserve_nonces.sql`, which
 *    says how). Whatever else deletes a reservation above the pending nonce lists its nonce in
 *    free_nonces in the same statement (releaseUnsentNonces, freeNoncesOf).
 * 3. When a signed transaction is broadcast through Laurel (`/transactions/execute*`),
 *    `markNonceBroadcast` records its hash on the reservation and renews the lease. Once the node
 *    counts the transaction, step (a) removes the row. A broadcast transaction that the node later
 *    drops (evicted, node restarted) frees its nonce when the renewed lease runs out instead of
 *    blocking the sender forever.
 *
 * 4. No stalled sender: a signed transaction whose nonce is above the sender's pending nonce (a
 *    built transaction before it was never signed or sent) is not broadcast to wait behind the
 *    hole. Unless the nonces before it are on their way (sent through Laurel a moment ago), once
 *    nothing has moved for NONCE_GAP_GRACE_MS (../sending/transaction-sender.ts) Laurel answers with a
 *    `nonce_gap` error naming the missing nonces, and frees their unsent reservations (`releaseUnsentNonces`): the sender's
 *    next build gets the first missing nonce, fills the gap, and the refused transaction can then
 *    be sent again as it is.
 * 5. A transaction the node does not know any more (dropped from its pool, or lost with the
 *    chain's state) frees its nonce (`freeNoncesOf`, see ../following/reconciliation.ts).
 * 6. Releasing unsent builds: a wallet may free every reservation of its own that no transaction
 *    was sent with (`DELETE /v1/transactions/reservations?chain=…`, `releaseUnsentNonces` over all
 *    its nonces): builds made to look at, never signed, then no longer hold nonces, and the next
 *    build uses the chain's next nonce at once instead of waiting behind them (or for the TTL). A
 *    released build that is signed and sent later still works if its nonce is still free; if a
 *    newer build took that nonce, the node refuses the second one sent (`nonce_too_low`).
 * 7. Who a build is for: each reservation keeps `call_hash`, a SHA-256 of its transaction's
 *    `to` and call data (`buildCallHash`). A signed transaction whose nonce and call hash match
 *    builds of other wallets only was built for one of them and signed by the wrong key: execute
 *    refuses it naming both wallets (`buildersOf`), before anything is recorded or sent.
 * 8. A transaction whose receipt a reorganisation took away is pending again: its nonce is marked
 *    broadcast again (as in 3) until it is mined again, or dropped (then 5 frees it).
 *    See Reconciliation.checkReceipts (../following/reconciliation.ts) and docs/reorgs.md.
 *
 * Consequences: N concurrent builds for one sender get N distinct, consecutive nonces; an unsigned
 * transaction that is never sent holds its nonce until a later transaction is sent (then the gap
 * is answered and freed), until its wallet releases its unsent builds, or for at most the TTL. A
 * sender who also sends transactions by other means is safe: the pending nonce moves past them.
 */

/**
 * What a reservation remembers of its build (rule 7): `0x` + SHA-256 of the lower-case `to` and
 * call data. A fingerprint only Laurel reads, so node's native hash rather than keccak256 in
 * JavaScript, which costs many times more per build.
 */
export function buildCallHash(to: string, data: string): string {
  return `0x${createHash('sha256').update(to.toLowerCase()).update(data.toLowerCase()).digest('hex')}`;
}

/** The node's `eth_getTransactionCount(sender, 'pending')`, and when the read of it began. */
export interface PendingNonce {
  nonce: number;
  /**
   * A read begun before the one that set the sender's floor, and counting fewer, is stale (the
   * chain moved on meanwhile) and frees nothing; begun later, it means transactions were dropped.
   */
  readAt: Date;
}

export interface ReserveNoncesParams {
  chainId: number;
  sender: string;
  pending: PendingNonce;
  /** One nonce per build: each build's buildCallHash (null when not known). */
  callHashes: readonly (string | null)[];
  /** Lease of the reservations; config.transactions.nonceReservationTtlSeconds. */
  ttlSeconds: number;
}

/**
 * Reserves one nonce of the sender per build (see the rule above), in ascending order: one call of
 * the SQL function `laurel_reserve_nonces` (`prisma/functions/laurel_reserve_nonces.sql`), which
 * holds the per-sender advisory lock only for the time of its statements. A prepared statement
 * (../prepared-statements.ts).
 *
 * The reservation commits without waiting for its WAL flush (synchronous_commit off for this
 * transaction only). The sender's lock is held until the commit, so waiting for the disk would
 * bound a sender's builds to one batch per fsync. What that gives up: if PostgreSQL itself
 * crashes, the reservations of its last fraction of a second (at most 3 × wal_writer_delay, 0.6 s
 * by default) may be lost, and such a nonce may be handed out again; the second transaction
 * signed with it is then refused by the node as a nonce already used — as when a lease runs out.
 */
export async function reserveNonces(pool: Pool, params: ReserveNoncesParams): Promise<number[]> {
  const sender = checksumAddress(params.sender);
  const rows = await runPrepared<{ nonce: string }>(
    pool,
    'laurel-reserve-nonces-for-calls',
    Prisma.sql`SELECT set_config('synchronous_commit', 'off', true),
                      laurel_reserve_nonces(${params.chainId}::integer, ${sender}::varchar, ${params.pending.nonce}::bigint,
                                            ${params.ttlSeconds}::double precision, ${params.callHashes}::varchar[],
                                            ${params.pending.readAt}::timestamptz) AS nonce`,
  );
  return rows.map((row) => Number(row.nonce));
}

/** Builds waiting at once for one sender's nonces are served by one call, up to this many. */
const RESERVATION_BATCH_MAX = 100;

interface WaitingBuild {
  chainId: number;
  sender: string;
  pending: PendingNonce;
  callHash: string | null;
}

/** The freshest of the builds' reads: the highest count, of those the latest begun. */
function freshest(reads: readonly PendingNonce[]): PendingNonce {
  return reads.reduce((best, read) =>
    read.nonce > best.nonce || (read.nonce === best.nonce && read.readAt > best.readAt) ? read : best,
  );
}

/**
 * The nonce reservations of one process: per (chain, sender), one reservation call in flight at a
 * time, and the builds that arrive meanwhile are served together by the next (one SQL round trip
 * and one turn of the sender's lock for all of them, their nonces handed out in arrival order).
 * A batch reserves from the highest pending nonce its builds saw: the freshest.
 */
export class NonceReserver {
  private readonly batches: KeyedBatches<WaitingBuild, number>;

  constructor(pool: Pool, ttlSeconds: number) {
    this.batches = new KeyedBatches(RESERVATION_BATCH_MAX, (builds) =>
      reserveNonces(pool, {
        chainId: builds[0].chainId,
        sender: builds[0].sender,
        pending: freshest(builds.map((build) => build.pending)),
        callHashes: builds.map((build) => build.callHash),
        ttlSeconds,
      }),
    );
  }

  reserve(chainId: number, sender: string, pending: PendingNonce, callHash: string | null): Promise<number> {
    return this.batches.submit(`${chainId}:${sender}`, { chainId, sender, pending, callHash });
  }
}

export interface MarkNonceBroadcastParams {
  chainId: number;
  sender: string;
  nonce: number | bigint;
  transactionHash: string;
  /** The renewed lease; config.transactions.nonceReservationTtlSeconds. */
  ttlSeconds: number;
}

/**
 * Records that a transaction using this nonce was broadcast, renewing the reservation's lease
 * (and creating it when the transaction was built elsewhere or its reservation was already
 * reclaimed), so no build hands the nonce out while the node may still include the transaction.
 * A prepared statement (../prepared-statements.ts): every send makes it.
 */
export async function markNonceBroadcast(pool: Pool, params: MarkNonceBroadcastParams): Promise<void> {
  await runPrepared(
    pool,
    'laurel-mark-nonce-broadcast',
    Prisma.sql`INSERT INTO nonce_reservations (chain_id, sender, nonce, reserved_at, expires_at, transaction_hash)
               VALUES (${params.chainId}, ${checksumAddress(params.sender)}, ${BigInt(params.nonce)}, now(),
                       now() + make_interval(secs => ${params.ttlSeconds}::double precision), ${params.transactionHash})
               ON CONFLICT (chain_id, sender, nonce)
                 DO UPDATE SET transaction_hash = EXCLUDED.transaction_hash, expires_at = EXCLUDED.expires_at`,
  );
}

/**
 * The CTE that lists in free_nonces the reservations a `dropped` CTE deleted (`chain_id, sender,
 * nonce` returned): whatever deletes reservations other than the reservation function does so in
 * the same statement (rule 2), so the next builds hand those nonces out again.
 */
const LIST_DROPPED_FREE = Prisma.sql`listed AS (
      INSERT INTO free_nonces (chain_id, sender, nonce)
      SELECT chain_id, sender, nonce FROM dropped ON CONFLICT DO NOTHING
    )`;

/**
 * Frees the nonces of transactions the node does not know any more (dropped from its pool, or lost
 * with the chain's state): their reservations go (their nonces listed free, rule 2), so the next
 * build hands those nonces out again and the sender's nonces follow the chain.
 */
export async function freeNoncesOf(prisma: PrismaClient, chainId: number, hashes: string[]): Promise<number> {
  if (hashes.length === 0) return 0;
  const rows = await prisma.$queryRaw<{ freed: bigint }[]>`
    WITH dropped AS (
      DELETE FROM nonce_reservations WHERE chain_id = ${chainId} AND transaction_hash = ANY(${hashes}::varchar[])
      RETURNING chain_id, sender, nonce
    ), ${LIST_DROPPED_FREE}
    SELECT count(*) AS freed FROM dropped`;
  return Number(rows[0].freed);
}

/**
 * Frees the sender's reservations of nonces `from` (inclusive) to `to` (exclusive; every nonce
 * from `from` when absent) that no transaction was sent with (not marked broadcast, no pending
 * `transactions` row): built, never signed or sent. The next builds reuse them (listed free, rule
 * 2). Returns the nonces freed, ascending.
 */
export async function releaseUnsentNonces(
  prisma: PrismaClient,
  params: { chainId: number; sender: string; from: number; to?: number },
): Promise<number[]> {
  const sender = checksumAddress(params.sender);
  const below = params.to === undefined ? null : BigInt(params.to);
  const rows = await prisma.$queryRaw<{ nonce: bigint }[]>`
    WITH dropped AS (
      DELETE FROM nonce_reservations r
       WHERE r.chain_id = ${params.chainId} AND r.sender = ${sender}
         AND r.nonce >= ${BigInt(params.from)} AND (${below}::bigint IS NULL OR r.nonce < ${below}::bigint)
         AND r.transaction_hash IS NULL
         AND NOT EXISTS (SELECT 1 FROM transactions t
                          WHERE t.chain_id = r.chain_id AND t.from_address = r.sender
                            AND t.nonce = r.nonce AND t.status = 'pending')
      RETURNING r.chain_id, r.sender, r.nonce
    ), ${LIST_DROPPED_FREE}
    SELECT nonce FROM dropped`;
  return rows.map((row) => Number(row.nonce)).sort((a, b) => a - b);
}

/**
 * The wallets Laurel built this call for with this nonce (rule 7), as an SQL expression: an array
 * of the senders of the chain's reservations of `nonce` whose call hash is `callHash`, the latest
 * first. Empty when Laurel did not build it (or its reservation is gone: used, released or
 * expired), and for a null `callHash` (a contract creation, which Laurel never builds). An
 * expression, not a query of its own: every send asks, inside the statement that records the
 * transaction (TransactionsRepository.record).
 */
export function buildersOf(params: { chainId: number; nonce: number; callHash: string | null }): Prisma.Sql {
  return Prisma.sql`(SELECT coalesce(array_agg(sender ORDER BY reserved_at DESC), '{}')::text[]
                       FROM nonce_reservations
                      WHERE chain_id = ${params.chainId} AND call_hash = ${params.callHash}
                        AND nonce = ${BigInt(params.nonce)})`;
}

/** Reservations whose lease runs, per chain id: the builds (and recent broadcasts) holding nonces. */
export async function openReservationsByChain(prisma: PrismaClient): Promise<Map<number, number>> {
  const rows = await prisma.$queryRaw<{ chain_id: number; open: bigint }[]>`
    SELECT chain_id, count(*) AS open FROM nonce_reservations WHERE expires_at > now() GROUP BY chain_id`;
  return new Map(rows.map((row) => [row.chain_id, Number(row.open)]));
}
