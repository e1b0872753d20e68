import type { ClientBase } from 'pg';

/** Runs `work` on `db` inside BEGIN … COMMIT, rolled back when it throws. */
export async function inTransaction<T>(db: ClientBase, work: () => Promise<T>): Promise<T> {
  await db.query('BEGIN');
  try {
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
