import type { Pool } from 'pg';
import { inTransaction } from '../../db/transaction';
import { notifyIndexChanged } from '../../indexer/index-changes';
import { storableText } from '../../stored-text';

/** Characters of a failure's reason stored (a parser's message may quote the document). */
const REASON_MAX_CHARS = 1_000;

/** The next attempt at a URI: a retry or a refresh, `attempt` 1 for a refresh. */
export interface NextAttempt {
  attempt: number;
  runAt: Date;
}

/**
 * Every statement on badge_metadata (besides the migration's functions, which the indexer calls
 * when it sees a badge). Profiles and listings read it joined to the index (IndexReader).
 */
export class BadgeMetadataRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Whether no indexed badge names the URI any more (the badges of reorganised blocks): then its
   * row is deleted. The row is locked before the badges are looked at: a badge being indexed with
   * this URI touches the row (laurel_badge_metadata_wanted), so either it is seen here or it makes
   * the row anew, with its fetch, once this commits.
   */
  async forgetUnused(uri: string): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      return await inTransaction(client, async () => {
        await client.query('SELECT 1 FROM badge_metadata WHERE uri = $1 FOR UPDATE', [uri]);
        const { rows } = await client.query<{ used: boolean }>(
          'SELECT EXISTS (SELECT 1 FROM indexed_badges WHERE base_uri = $1) AS used',
          [uri],
        );
        if (rows[0].used) return false;
        await client.query('DELETE FROM badge_metadata WHERE uri = $1', [uri]);
        return true;
      });
    } finally {
      client.release();
    }
  }

  /**
   * Stores a fetched document and schedules the refresh (`next` null: none, the content never
   * changes), in one transaction. When the document differs from the one stored, the read caches
   * of every chain whose badges name the URI are told (an index change without reward rows).
   */
  async recordDocument(
    uri: string,
    document: Record<string, unknown>,
    next: NextAttempt | null,
  ): Promise<void> {
    const client = await this.pool.connect();
    try {
      await inTransaction(client, async () => {
        const { rows } = await client.query<{ changed: boolean }>(
          `WITH previous AS (SELECT document FROM badge_metadata WHERE uri = $1),
           stored AS (
             INSERT INTO badge_metadata AS m (uri, document, fetched_at, error, attempted_at, failed_attempts)
             VALUES ($1, $2::jsonb, now(), NULL, now(), 0)
             ON CONFLICT (uri) DO UPDATE SET document = EXCLUDED.document, fetched_at = now(), error = NULL,
               attempted_at = now(), failed_attempts = 0
             RETURNING 1)
           SELECT (SELECT count(*) FROM stored) = 1
             AND NOT EXISTS (SELECT 1 FROM previous WHERE document = $2::jsonb) AS changed`,
          [uri, JSON.stringify(document)],
        );
        if (next) {
          await client.query('SELECT laurel_add_badge_metadata_job($1, $2, $3)', [
            uri,
            next.attempt,
            next.runAt,
          ]);
        }
        if (!rows[0].changed) return;
        const chains = await client.query<{ chain_id: number }>(
          'SELECT DISTINCT chain_id FROM indexed_badges WHERE base_uri = $1',
          [uri],
        );
        for (const { chain_id: chainId } of chains.rows) {
          await notifyIndexChanged(client, { chainId, rewardsFromDay: Infinity, removed: false });
        }
      });
    } finally {
      client.release();
    }
  }

  /**
   * Stores why an attempt failed (a document fetched before is kept and still answered) and
   * schedules the next attempt, in one statement. The reason may quote what the host sent: it is
   * stored without NUL or unpaired surrogates, and bounded.
   */
  async recordFailure(uri: string, reason: string, next: NextAttempt): Promise<void> {
    await this.pool.query(
      `WITH stored AS (
         INSERT INTO badge_metadata AS m (uri, error, attempted_at, failed_attempts)
         VALUES ($1, $2, now(), 1)
         ON CONFLICT (uri) DO UPDATE SET error = EXCLUDED.error, attempted_at = now(),
           failed_attempts = m.failed_attempts + 1
         RETURNING 1)
       SELECT laurel_add_badge_metadata_job($1, $3, $4) FROM stored`,
      [uri, storableText(reason.slice(0, REASON_MAX_CHARS)), next.attempt, next.runAt],
    );
  }
}
