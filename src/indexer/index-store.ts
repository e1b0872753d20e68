/**
 * The indexer's own statements besides the index rows themselves (index-writer.ts): the cursor of
 * each chain, the Laurel contracts already indexed, the marks of receipts ingested ahead of it, and
 * the blocks indexed while a reorganisation could still replace them (indexed_blocks).
 */
import type { ClientBase, Pool } from 'pg';
import type { Chain } from '../chain/registry';
import { getBytes } from 'ethers';
import { prepared } from '../db/connection';
import { storableText } from '../stored-text';
import { checksum, type ChainLog, type KnownContracts, type TokenKind } from './log-decoder';

/** The index's cursor row of a chain, created at `startBlock - 1` if missing, locked for update. */
export async function lockCursor(db: ClientBase, chainId: number, startBlock: number): Promise<number> {
  // One statement once the row exists, which is every time but a chain's first.
  const lock = prepared(`SELECT block_number FROM indexer_cursors WHERE chain_id = $1 FOR UPDATE`, [chainId]);
  let { rows } = await db.query<{ block_number: string }>(lock);
  if (rows.length === 0) {
    await db.query(
      prepared(
        `INSERT INTO indexer_cursors (chain_id, block_number) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [chainId, startBlock - 1],
      ),
    );
    ({ rows } = await db.query<{ block_number: string }>(lock));
  }
  return Number(rows[0].block_number);
}

/** Moves the chain's cursor (locked by lockCursor in the same transaction). */
export async function moveCursor(db: ClientBase, chainId: number, blockNumber: number): Promise<void> {
  await db.query(
    prepared(`UPDATE indexer_cursors SET block_number = $2, updated_at = now() WHERE chain_id = $1`, [
      chainId,
      blockNumber,
    ]),
  );
}

/** The chain's cursor as committed (-1 before anything was indexed): a standby's status, a receipt waiting for it. */
export async function readCursor(db: ClientBase | Pool, chainId: number): Promise<number | null> {
  const { rows } = await db.query<{ block_number: string }>(
    prepared(`SELECT block_number FROM indexer_cursors WHERE chain_id = $1`, [chainId]),
  );
  return rows[0] ? Number(rows[0].block_number) : null;
}

/**
 * The Laurel contracts of a chain already in the index: all, only those among `addresses`, or only
 * those created up to block `upToBlock`.
 */
export async function loadKnownContracts(
  db: Pool | ClientBase,
  chain: Chain,
  only: { addresses?: string[]; upToBlock?: number } = {},
): Promise<KnownContracts> {
  const params: unknown[] = [chain.chainId];
  let filter = '';
  if (only.addresses) filter += ` AND address = ANY($${params.push(only.addresses)})`;
  if (only.upToBlock !== undefined) filter += ` AND block_number <= $${params.push(only.upToBlock)}`;
  const { rows } = await db.query<{ address: string; kind: string }>(
    prepared(
      `SELECT address, 'app' AS kind FROM indexed_apps WHERE chain_id = $1 ${filter}
     UNION ALL SELECT address, kind::text FROM indexed_tokens WHERE chain_id = $1 ${filter}
     UNION ALL SELECT address, 'badge' FROM indexed_badges WHERE chain_id = $1 ${filter}`,
      params,
    ),
  );
  const known: KnownContracts = {
    factory: checksum(chain.factoryAddress),
    apps: new Set(),
    tokens: new Map(),
    badges: new Set(),
  };
  for (const { address, kind } of rows) {
    if (kind === 'app') known.apps.add(address);
    else if (kind === 'badge') known.badges.add(address);
    else known.tokens.set(address, kind as TokenKind);
  }
  return known;
}

/** A log of a receipt marked as ingested, with its block and what undoing its event needs (undo-journal.ts). */
export interface ReceiptLogMark {
  blockNumber: number;
  blockHash: string;
  logIndex: number;
  undo: string | null;
}

/**
 * Marks logs of receipts' blocks as ingested, in one statement; returns those not marked before,
 * as positionKey()s. Each block's hash goes with them: the indexer keeps them only if it finds
 * that block there.
 */
export async function markReceiptLogs(
  db: ClientBase,
  chainId: number,
  logs: readonly ReceiptLogMark[],
): Promise<Set<string>> {
  const { rows } = await db.query<{ block_number: string; log_index: number }>(
    prepared(
      `INSERT INTO indexer_receipt_logs (chain_id, block_number, block_hash, log_index, undo)
     SELECT $1, b, h, l, u::jsonb FROM unnest($2::bigint[], $3::varchar[], $4::int[], $5::text[]) AS x(b, h, l, u)
     ON CONFLICT DO NOTHING RETURNING block_number, log_index`,
      [
        chainId,
        logs.map((log) => log.blockNumber),
        logs.map((log) => log.blockHash),
        logs.map((log) => log.logIndex),
        logs.map((log) => log.undo),
      ],
    ),
  );
  return new Set(rows.map((row) => positionKey(Number(row.block_number), row.log_index)));
}

/** The blocks up to `toBlock` with receipt marks, and the block hashes the marks were made in. */
export async function receiptLogBlocks(
  db: ClientBase,
  chainId: number,
  toBlock: number,
): Promise<{ number: number; hash: string | null }[]> {
  const { rows } = await db.query<{ block_number: string; block_hash: string | null }>(
    prepared(
      `SELECT DISTINCT block_number, block_hash FROM indexer_receipt_logs WHERE chain_id = $1 AND block_number <= $2`,
      [chainId, toBlock],
    ),
  );
  return rows.map((row) => ({ number: Number(row.block_number), hash: row.block_hash }));
}

/** The highest block of a receipt ingested ahead of the cursor, or null when there is none. */
export async function highestReceiptLogBlock(db: ClientBase, chainId: number): Promise<number | null> {
  const { rows } = await db.query<{ block: string | null }>(
    prepared(`SELECT max(block_number) AS block FROM indexer_receipt_logs WHERE chain_id = $1`, [chainId]),
  );
  return rows[0].block === null ? null : Number(rows[0].block);
}

/** Removes the receipt marks of logs (at `positionKey`s) whose events were not written after all. */
export async function unmarkReceiptLogs(
  db: ClientBase,
  chainId: number,
  logs: readonly { blockNumber: number; logIndex: number }[],
): Promise<void> {
  if (logs.length === 0) return;
  await db.query(
    prepared(
      `DELETE FROM indexer_receipt_logs WHERE chain_id = $1
         AND (block_number, log_index) IN (SELECT * FROM unnest($2::bigint[], $3::int[]))`,
      [chainId, logs.map((log) => log.blockNumber), logs.map((log) => log.logIndex)],
    ),
  );
}

/** Removes the receipt marks of blocks up to `toBlock` (the indexer reached them); returns them as `block:log` keys. */
export async function takeReceiptLogs(
  db: ClientBase,
  chainId: number,
  toBlock: number,
): Promise<Set<string>> {
  const { rows } = await db.query<{ block_number: string; log_index: number }>(
    prepared(
      `DELETE FROM indexer_receipt_logs WHERE chain_id = $1 AND block_number <= $2
     RETURNING block_number, log_index`,
      [chainId, toBlock],
    ),
  );
  return new Set(rows.map((row) => positionKey(Number(row.block_number), row.log_index)));
}

/** A log's position in the chain as a key. */
export const positionKey = (blockNumber: number, logIndex: number) => `${blockNumber}:${logIndex}`;

/** A block indexed while it could still be replaced: its place in the chain and its undo journal. */
export interface TrackedBlock {
  number: number;
  hash: string;
  parentHash: string;
  /** undo-journal.ts journalOf() of its events. */
  undo: string | null;
}

/** Records blocks just indexed (none of them recorded yet). */
export async function recordBlocks(
  db: ClientBase,
  chainId: number,
  blocks: readonly TrackedBlock[],
): Promise<void> {
  if (blocks.length === 0) return;
  await db.query(
    prepared(
      `INSERT INTO indexed_blocks (chain_id, block_number, hash, parent_hash, undo)
     SELECT $1, n, h, p, u::jsonb FROM unnest($2::bigint[], $3::varchar[], $4::varchar[], $5::text[]) AS x(n, h, p, u)`,
      [
        chainId,
        blocks.map((block) => block.number),
        blocks.map((block) => block.hash),
        blocks.map((block) => block.parentHash),
        blocks.map((block) => block.undo),
      ],
    ),
  );
}

/** Forgets the recorded blocks below `finalized` (final: no reorganisation replaces them); it stays as the anchor. */
export async function forgetFinalBlocks(db: ClientBase, chainId: number, finalized: number): Promise<void> {
  await db.query(
    prepared('DELETE FROM indexed_blocks WHERE chain_id = $1 AND block_number < $2', [chainId, finalized]),
  );
}

/** The recorded hash of block `blockNumber`; null when it is not recorded (final, or never tracked). */
export async function recordedBlockHash(
  db: ClientBase,
  chainId: number,
  blockNumber: number,
): Promise<string | null> {
  const { rows } = await db.query<{ hash: string }>(
    prepared('SELECT hash FROM indexed_blocks WHERE chain_id = $1 AND block_number = $2', [
      chainId,
      blockNumber,
    ]),
  );
  return rows[0]?.hash ?? null;
}

/** The recorded blocks at or below `atMost`, highest first, at most `limit` of them. */
export async function recordedBlocks(
  db: ClientBase,
  chainId: number,
  atMost: number,
  limit: number,
): Promise<{ number: number; hash: string }[]> {
  const { rows } = await db.query<{ block_number: string; hash: string }>(
    prepared(
      `SELECT block_number, hash FROM indexed_blocks WHERE chain_id = $1 AND block_number <= $2
     ORDER BY block_number DESC LIMIT $3`,
      [chainId, atMost, limit],
    ),
  );
  return rows.map((row) => ({ number: Number(row.block_number), hash: row.hash }));
}

/** The lowest recorded block: the window's anchor, null when none is recorded. */
export async function lowestRecordedBlock(
  db: ClientBase,
  chainId: number,
): Promise<{ number: number; hash: string } | null> {
  const { rows } = await db.query<{ block_number: string; hash: string }>(
    prepared(
      'SELECT block_number, hash FROM indexed_blocks WHERE chain_id = $1 ORDER BY block_number LIMIT 1',
      [chainId],
    ),
  );
  return rows[0] ? { number: Number(rows[0].block_number), hash: rows[0].hash } : null;
}

/** A log of a Laurel contract the indexer could not write, and why. */
export interface UnindexableLog {
  log: ChainLog;
  reason: string;
}

/** Longest reason kept (a database error's message, a decoding error's). */
const REASON_MAX_CHARS = 1_000;

/**
 * Records logs the indexer passes without writing them (unindexable_events), each once: a range
 * indexed again after a reorganisation records its own again.
 */
export async function recordUnindexable(
  db: ClientBase,
  chainId: number,
  unindexable: readonly UnindexableLog[],
  rawMaxBytes: number,
): Promise<void> {
  if (unindexable.length === 0) return;
  const logs = unindexable.map(({ log }) => log);
  await db.query(
    prepared(
      `INSERT INTO unindexable_events AS e (chain_id, block_number, transaction_hash, log_index, address, reason,
         topics, data)
       SELECT $1, b, h, l, a, r, string_to_array(t, ','), d
       FROM unnest($2::bigint[], $3::varchar[], $4::int[], $5::varchar[], $6::text[], $7::text[], $8::bytea[])
         AS x(b, h, l, a, r, t, d)
       ON CONFLICT (chain_id, block_number, log_index) DO UPDATE SET transaction_hash = EXCLUDED.transaction_hash,
         address = EXCLUDED.address, reason = EXCLUDED.reason, topics = EXCLUDED.topics, data = EXCLUDED.data,
         recorded_at = now()`,
      [
        chainId,
        logs.map((log) => log.blockNumber),
        logs.map((log) => log.transactionHash),
        logs.map((log) => log.logIndex),
        logs.map((log) => log.address),
        unindexable.map(({ reason }) => storableText(reason).slice(0, REASON_MAX_CHARS)),
        logs.map((log) => log.topics.join(',')),
        logs.map((log) => Buffer.from(getBytes(log.data)).subarray(0, rawMaxBytes)),
      ],
    ),
  );
}

/** The chain's unindexable events on record: how many, and the latest. */
export interface UnindexableSummary {
  events: number;
  latest: { block: number; transactionHash: string; logIndex: number; reason: string } | null;
}

export async function unindexableSummary(db: ClientBase, chainId: number): Promise<UnindexableSummary> {
  const { rows } = await db.query<{
    events: string;
    block_number: string | null;
    transaction_hash: string | null;
    log_index: number | null;
    reason: string | null;
  }>(
    prepared(
      `SELECT count(*) OVER () AS events, block_number, transaction_hash, log_index, reason
       FROM unindexable_events WHERE chain_id = $1 ORDER BY block_number DESC, log_index DESC LIMIT 1`,
      [chainId],
    ),
  );
  const [row] = rows;
  if (!row) return { events: 0, latest: null };
  return {
    events: Number(row.events),
    latest: {
      block: Number(row.block_number),
      transactionHash: row.transaction_hash!,
      logIndex: row.log_index!,
      reason: row.reason!,
    },
  };
}

/** Deletes the records of unindexable events older than `days`; returns how many. */
export async function pruneUnindexable(db: Pool, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM unindexable_events WHERE recorded_at < now() - make_interval(days => $1)`,
    [days],
  );
  return rowCount ?? 0;
}
