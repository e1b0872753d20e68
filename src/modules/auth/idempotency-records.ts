import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { AuthConfig } from '../../config/auth';
import type { IdempotencyClaim, IdempotencyScope, IdempotencyStore } from '../../operations/idempotency';

/**
 * Takes the key for `holder` when it is free (no record, an expired one, or one whose run held it
 * past its lock: its process died); otherwise reads the record as it is. A record committed by
 * another request after this statement's snapshot is in neither half: the caller asks again.
 */
const CLAIM = `
  WITH claimed AS (
    INSERT INTO idempotency_records AS r
      (account_address, operation, key, fingerprint, status, holder, locked_until, expires_at)
    VALUES ($1, $2, $3, $4, 'in_progress', $5::uuid,
            now() + make_interval(secs => $6), now() + make_interval(hours => $7))
    ON CONFLICT (account_address, operation, key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, status = 'in_progress', holder = EXCLUDED.holder,
          locked_until = EXCLUDED.locked_until, answer = NULL, created_at = now(),
          expires_at = EXCLUDED.expires_at
      WHERE r.expires_at <= now() OR (r.status = 'in_progress' AND r.locked_until <= now())
    RETURNING holder::text AS holder, fingerprint, status, NULL::json AS answer
  )
  SELECT * FROM claimed
  UNION ALL
  SELECT holder::text, fingerprint, status, answer FROM idempotency_records
   WHERE account_address = $1 AND operation = $2 AND key = $3 AND expires_at > now()
     AND NOT EXISTS (SELECT 1 FROM claimed)`;

/** How many times a claim reads again a record that another request wrote meanwhile. */
const CLAIM_ATTEMPTS = 3;

interface RecordRow {
  holder: string | null;
  fingerprint: string;
  status: 'in_progress' | 'completed';
  answer: unknown;
}

/** The Idempotency-Key records in PostgreSQL (`idempotency_records`): every process shares them. */
export class IdempotencyRecords implements IdempotencyStore {
  readonly keyMaxLength: number;

  constructor(
    private readonly pool: Pool,
    private readonly settings: AuthConfig['auth']['idempotency'],
  ) {
    this.keyMaxLength = settings.keyMaxLength;
  }

  async claim(scope: IdempotencyScope, fingerprint: string): Promise<IdempotencyClaim> {
    const holder = randomUUID();
    const { lockSeconds, ttlHours } = this.settings;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const { rows } = await this.pool.query<RecordRow>(CLAIM, [
        scope.account,
        scope.operation,
        scope.key,
        fingerprint,
        holder,
        lockSeconds,
        ttlHours,
      ]);
      const [record] = rows;
      if (!record) continue;
      if (record.holder === holder) return { state: 'claimed', holder };
      if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
      if (record.status === 'completed') return { state: 'completed', answer: record.answer };
      return { state: 'in_progress' };
    }
    // Written and freed again each time we looked: another request is at work on the key.
    return { state: 'in_progress' };
  }

  async complete(scope: IdempotencyScope, holder: string, answer: unknown): Promise<void> {
    await this.pool.query(
      `UPDATE idempotency_records
          SET status = 'completed', answer = $5::json, holder = NULL, locked_until = NULL
        WHERE account_address = $1 AND operation = $2 AND key = $3 AND holder = $4::uuid`,
      [scope.account, scope.operation, scope.key, holder, JSON.stringify(answer ?? null)],
    );
  }

  async release(scope: IdempotencyScope, holder: string): Promise<void> {
    await this.pool.query(
      `DELETE FROM idempotency_records
        WHERE account_address = $1 AND operation = $2 AND key = $3 AND holder = $4::uuid`,
      [scope.account, scope.operation, scope.key, holder],
    );
  }

  /** Housekeeping (maintenance__prune): records past IDEMPOTENCY_KEY_TTL_HOURS. */
  async pruneExpired(): Promise<{ 'idempotency keys': number }> {
    const { rowCount } = await this.pool.query('DELETE FROM idempotency_records WHERE expires_at <= now()');
    return { 'idempotency keys': rowCount ?? 0 };
  }
}
