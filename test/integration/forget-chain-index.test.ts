import { NotificationSession } from '../../src/db/notifications';
import { inTransaction } from '../../src/db/transaction';
import { IndexChanges, type IndexChange } from '../../src/indexer/index-changes';
import { forgetChainIndex } from '../../src/indexer/index-rollback';
import { readCursor } from '../../src/indexer/index-store';
import { createLogger } from '../../src/logger';
import { createTestDatabase, createTestPool } from '../helpers/database';
import { waitUntil } from '../helpers/wait';

/**
 * What an embedded chain restored from a save older than the finality window gets (chain-indexer.ts):
 * its index emptied, its cursor before its start block, and every process's read caches told, as of
 * any removal. The other chains' rows stay.
 */
it('empties one chain’s index, moves its cursor back, and tells every listening process', async () => {
  // Migrated: a copy of the run's template.
  const database = await createTestDatabase();
  const pool = createTestPool(database.url, 2);
  const session = new NotificationSession(database.url, createLogger('silent'));
  const changes = new IndexChanges(session);
  const heard: (IndexChange | null)[] = [];
  changes.subscribe((change) => heard.push(change));
  try {
    await session.listen();
    await waitUntil('listening', () => changes.listening);
    for (const chainId of [31337, 84532]) {
      await pool.query('INSERT INTO indexer_cursors (chain_id, block_number) VALUES ($1, 500)', [chainId]);
      await pool.query(
        `INSERT INTO token_balances (chain_id, token_address, holder, balance) VALUES ($1, $2, $3, 7)`,
        [chainId, `0x${'1'.repeat(40)}`, `0x${'2'.repeat(40)}`],
      );
    }
    const db = await pool.connect();
    try {
      await inTransaction(db, () => forgetChainIndex(db, 31337, 10));
    } finally {
      db.release();
    }
    expect(await readCursor(pool, 31337)).toBe(9);
    expect(await readCursor(pool, 84532)).toBe(500);
    const { rows } = await pool.query<{ chain_id: number }>('SELECT chain_id FROM token_balances');
    expect(rows).toEqual([{ chain_id: 84532 }]);
    await waitUntil('the change heard', () => heard.some((change) => change?.chainId === 31337));
    expect(heard.filter((change) => change !== null)).toEqual([
      { chainId: 31337, rewardsFromDay: -Infinity, removed: true },
    ]);
  } finally {
    await session.stop();
    await pool.end();
    await database.drop();
  }
});
