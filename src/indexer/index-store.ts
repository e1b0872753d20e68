/**
 * The indexer's own statements besides the index rows themselves (index-writer.ts): the cursor of
 * each chain, the Laurel contracts already indexed, and the marks of receipts ingested ahead of it.
 */
import type { ClientBase, Pool } from 'pg';
import type { Chain } from '../chain/registry';
import { checksum, type KnownContracts, type TokenKind } from './log-decoder';

/** The index's cursor row of a chain, created at `startBlock - 1` if missing, locked for update. */
export async function lockCursor(db: ClientBase, chainId: number, startBlock: number): Promise<number> {
  await db.query(
    `INSERT INTO indexer_cursors (chain_id, block_number) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
    [chainId, startBlock - 1],
  );
  const { rows } = await db.query<{ block_number: string }>(
    `SELECT block_number FROM indexer_cursors WHERE chain_id = $1 FOR UPDATE`,
    [chainId],
  );
  return Number(rows[0].block_number);
}

/** Moves the chain's cursor (locked by lockCursor in the same transaction). */
export async function moveCursor(db: ClientBase, chainId: number, blockNumber: number): Promise<void> {
  await db.query(`UPDATE indexer_cursors SET block_number = $2, updated_at = now() WHERE chain_id = $1`, [
    chainId,
    blockNumber,
  ]);
}

/** The chain's cursor as committed (-1 before anything was indexed); for a standby's status. */
export async function readCursor(db: ClientBase, chainId: number): Promise<number | null> {
  const { rows } = await db.query<{ block_number: string }>(
    `SELECT block_number FROM indexer_cursors WHERE chain_id = $1`,
    [chainId],
  );
  return rows[0] ? Number(rows[0].block_number) : null;
}

/** The Laurel contracts of a chain already in the index (all, or only those among `addresses`). */
export async function loadKnownContracts(
  db: Pool | ClientBase,
  chain: Chain,
  addresses?: string[],
): Promise<KnownContracts> {
  const filter = addresses ? 'AND address = ANY($2)' : '';
  const { rows } = await db.query<{ address: string; kind: string }>(
    `SELECT address, 'app' AS kind FROM indexed_apps WHERE chain_id = $1 ${filter}
     UNION ALL SELECT address, kind::text FROM indexed_tokens WHERE chain_id = $1 ${filter}
     UNION ALL SELECT address, 'badge' FROM indexed_badges WHERE chain_id = $1 ${filter}`,
    addresses ? [chain.chainId, addresses] : [chain.chainId],
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

/** Marks logs of a block as ingested from a receipt; returns the log indexes not marked before. */
export async function markReceiptLogs(
  db: ClientBase,
  chainId: number,
  blockNumber: number,
  logIndexes: number[],
): Promise<Set<number>> {
  const { rows } = await db.query<{ log_index: number }>(
    `INSERT INTO indexer_receipt_logs (chain_id, block_number, log_index)
     SELECT $1, $2, l FROM unnest($3::int[]) AS x(l) ON CONFLICT DO NOTHING RETURNING log_index`,
    [chainId, blockNumber, logIndexes],
  );
  return new Set(rows.map((row) => row.log_index));
}

/** Removes the receipt marks of blocks up to `toBlock` (the indexer reached them); returns them as `block:log` keys. */
export async function takeReceiptLogs(
  db: ClientBase,
  chainId: number,
  toBlock: number,
): Promise<Set<string>> {
  const { rows } = await db.query<{ block_number: string; log_index: number }>(
    `DELETE FROM indexer_receipt_logs WHERE chain_id = $1 AND block_number <= $2
     RETURNING block_number, log_index`,
    [chainId, toBlock],
  );
  return new Set(rows.map((row) => positionKey(Number(row.block_number), row.log_index)));
}

/** A log's position in the chain as a key. */
export const positionKey = (blockNumber: number, logIndex: number) => `${blockNumber}:${logIndex}`;
