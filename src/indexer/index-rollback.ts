/**
 * Takes what reorganised blocks wrote out of the index, inside the caller's transaction: the rows
 * that carry their block numbers go (completed actions, apps, tokens and badges discovered there),
 * and the sums they added to are taken back (index-writer.ts prepareIndexUndo): the rewards from the
 * deleted completed actions, the transfers and operator changes from the blocks' journals
 * (undo-journal.ts). Blocks indexed by the cursor and blocks of receipts ingested ahead of it alike.
 */
import type { ClientBase } from 'pg';
import { notifyIndexChanged } from './index-changes';
import { lockCursor, moveCursor } from './index-store';
import { prepareIndexUndo, type PreparedWrites } from './index-writer';
import type { IndexEvent, RewardKindName } from './log-decoder';
import { eventsOfJournal } from './undo-journal';

/** The blocks undone: every block above one (a rollback to a common ancestor), or some blocks. */
export type UndoneBlocks = { above: number } | { blocks: readonly number[] };

function blockFilter(undone: UndoneBlocks): { sql: string; param: number | readonly number[] } {
  return 'above' in undone
    ? { sql: 'block_number > $2', param: undone.above }
    : { sql: 'block_number = ANY($2::bigint[])', param: undone.blocks };
}

const byChainOrder = (a: IndexEvent, b: IndexEvent) =>
  a.blockNumber - b.blockNumber || a.logIndex - b.logIndex;

/**
 * Deletes the rows of `undone` blocks and returns the statements taking their events out of the
 * sums, to be applied (applyIndexWrites) in the same transaction; `events` counts every event
 * undone and contract row deleted.
 */
export async function undoBlocks(
  db: ClientBase,
  chainId: number,
  undone: UndoneBlocks,
): Promise<PreparedWrites> {
  const { sql: where, param } = blockFilter(undone);
  const params = [chainId, param];
  const rewards = await db.query<{
    app: string;
    user: string;
    token: string;
    kind: RewardKindName;
    action: string;
    amount: string;
    block: string;
    time: number;
    log_index: number;
    hash: string;
  }>(
    `DELETE FROM completed_actions WHERE chain_id = $1 AND ${where}
     RETURNING app_address AS app, user_address AS "user", token_address AS token, kind::text AS kind,
       action_name AS action, amount::text AS amount, block_number AS block,
       extract(epoch FROM block_time)::float8 AS time, log_index, transaction_hash AS hash`,
    params,
  );
  const journals = await db.query<{ block: string; undo: unknown }>(
    `SELECT block_number AS block, undo FROM indexed_blocks WHERE chain_id = $1 AND ${where} AND undo IS NOT NULL
     UNION ALL
     SELECT block_number, undo FROM indexer_receipt_logs WHERE chain_id = $1 AND ${where} AND undo IS NOT NULL`,
    params,
  );
  const contracts = await db.query<{ n: number }>(
    `WITH apps AS (DELETE FROM indexed_apps WHERE chain_id = $1 AND ${where} RETURNING 1),
          tokens AS (DELETE FROM indexed_tokens WHERE chain_id = $1 AND ${where} RETURNING 1),
          badges AS (DELETE FROM indexed_badges WHERE chain_id = $1 AND ${where} RETURNING 1)
     SELECT (SELECT count(*) FROM apps) + (SELECT count(*) FROM tokens) + (SELECT count(*) FROM badges) AS n`,
    params,
  );
  await db.query(`DELETE FROM indexed_blocks WHERE chain_id = $1 AND ${where}`, params);
  await db.query(`DELETE FROM indexer_receipt_logs WHERE chain_id = $1 AND ${where}`, params);
  // What the replaced blocks held is no longer the chain's: the blocks indexed instead record their own.
  await db.query(`DELETE FROM unindexable_events WHERE chain_id = $1 AND ${where}`, params);

  const blockTimes = new Map<number, number>();
  const events: IndexEvent[] = rewards.rows.map((row) => {
    blockTimes.set(Number(row.block), row.time);
    return {
      type: 'reward',
      blockNumber: Number(row.block),
      logIndex: row.log_index,
      transactionHash: row.hash,
      app: row.app,
      user: row.user,
      token: row.token,
      kind: row.kind,
      amount: BigInt(row.amount),
      actionName: row.action,
    };
  });
  for (const row of journals.rows) events.push(...eventsOfJournal(Number(row.block), row.undo));
  const undo = prepareIndexUndo(chainId, events.sort(byChainOrder), blockTimes);
  return { ...undo, events: undo.events + Number(contracts.rows[0].n) };
}

/** The tables holding a chain's index (besides its cursor). */
const CHAIN_INDEX_TABLES = [
  'completed_actions',
  'reward_daily_totals',
  'reward_totals',
  'token_balances',
  'badge_holdings',
  'indexed_app_operators',
  'indexed_badges',
  'indexed_tokens',
  'indexed_apps',
  'indexed_blocks',
  'indexer_receipt_logs',
  'unindexable_events',
] as const;

/**
 * Empties the chain's index and moves its cursor back before `startBlock`, inside the caller's
 * transaction: the chain is then indexed again from its start. The read caches of every process
 * hear of it once it commits, as of any removal (every day, rows removed).
 */
export async function forgetChainIndex(db: ClientBase, chainId: number, startBlock: number): Promise<void> {
  await lockCursor(db, chainId, startBlock);
  for (const table of CHAIN_INDEX_TABLES)
    await db.query(`DELETE FROM ${table} WHERE chain_id = $1`, [chainId]);
  await moveCursor(db, chainId, startBlock - 1);
  await notifyIndexChanged(db, { chainId, rewardsFromDay: -Infinity, removed: true });
}
