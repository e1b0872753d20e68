import type { Pool } from 'pg';
import { isRefusedForItsData } from '../../db/availability';
import type { Prisma } from '../../db/prisma';
import { KeyedBatches } from '../../keyed-batches';
import type { WebhookCallResult } from './webhook-http-client';
import { WEBHOOK_MAX_ATTEMPTS } from './webhook-retry-schedule';

/** How an attempt's outcome moves its delivery (and its webhook) on. */
export type AttemptKind =
  /** A job's attempt: success ends the delivery, failure schedules the next or deactivates. */
  | 'scheduled'
  /** A resend asked for by the owner: logged, the delivery succeeds on 2xx, no schedule change. */
  | 'manual'
  /** The `test` call: success (the challenge answered) activates the webhook. */
  | 'verification';

/** A delivery with what its call needs. */
export interface LoadedDelivery {
  status: string;
  attempts: number;
  disabled: boolean;
  url: string;
  accountAddress: string;
  event: string;
  idempotencyKey: string;
  payload: Prisma.JsonValue;
  /** The account's stored secret; null when it has none yet. */
  secretEncrypted: string | null;
  /** The secret a rotation replaced, while its window lasts (it signs the call too); else null. */
  previousSecretEncrypted: string | null;
  /** The request that caused the event (for the attempt's log line). */
  requestId: string | null;
  webhookId: number;
  /** Its first attempt is still left to the process that recorded the event (FirstAttempts). */
  firstAttemptHeld: boolean;
}

/** One attempt to record: the call's result and what follows from it. */
export interface AttemptRecord {
  deliveryId: bigint;
  kind: AttemptKind;
  url: string;
  result: WebhookCallResult;
  /** When a failed scheduled attempt is tried again (unless it was the last). */
  nextAttemptDelayMs: number;
}

/** One logged attempt, as stored. */
export interface WebhookAttemptLog {
  id: bigint;
  deliveryId: bigint;
  webhookId: number;
  attempt: number;
  url: string;
  successful: boolean;
  responseCode: number | null;
  responseBody: string | null;
  errorMessage: string | null;
  durationMs: number;
  createdAt: Date;
}

/**
 * One statement that records attempts and loads deliveries, for any number of each (one
 * transaction). Parameters: $1 the delivery ids to load (a JSON array), $2 the attempts (a JSON
 * array of AttemptRow), $3 WEBHOOK_MAX_ATTEMPTS, $4 whether to return the log rows. JSON rather
 * than arrays: the planner cannot see how many rows each holds, so the plan does not depend on
 * the values and PostgreSQL keeps one generic plan of this prepared statement (with arrays it
 * would plan each execution again, the bulk of its cost).
 *
 * Each attempt's log row is written together with its consequence: the delivery done, the next
 * attempt's job enqueued, or the webhook deactivated (after the last scheduled attempt) or
 * activated (a verification that succeeded). The UPDATE locks each delivery row, so attempts of
 * one delivery recorded by two workers are counted one after the other. The loads see the
 * database as it was when the statement began.
 */
const RECORD_AND_LOAD_SQL = `
  WITH attempt AS (
    SELECT * FROM json_to_recordset($2::json)
      AS a(delivery_id bigint, successful boolean, kind text, url text, response_code int,
           response_body text, error_message text, duration_ms int, next_attempt_seconds double precision)
  ), delivery AS (
    UPDATE webhook_deliveries d SET
      attempts = d.attempts + 1,
      updated_at = now(),
      -- A scheduled attempt ends the first attempt's lease (a manual one leaves it: the first
      -- attempt, or its job after the lease, still has to come).
      first_attempt_until = CASE WHEN a.kind = 'scheduled' THEN NULL ELSE d.first_attempt_until END,
      status = CASE
        WHEN a.successful THEN 'succeeded'
        WHEN a.kind = 'verification' OR (a.kind = 'scheduled' AND d.attempts + 1 >= $3::int) THEN 'failed'
        ELSE d.status END::webhook_delivery_status
    FROM attempt a
    WHERE d.id = a.delivery_id AND d.id = ANY(ARRAY(SELECT delivery_id FROM attempt))
    RETURNING d.id, d.webhook_id, d.attempts, d.status, a.*
  ), log AS (
    INSERT INTO webhook_logs (delivery_id, webhook_id, attempt, url, successful, response_code,
                              response_body, error_message, duration_ms)
    SELECT id, webhook_id, attempts, url, successful, response_code, response_body, error_message, duration_ms
    FROM delivery
    RETURNING *
  ), activated AS (
    -- disabled_at keeps the time it was last disabled (the interface's timestamp, never null). Only
    -- the url that answered the challenge is activated: one changed meanwhile stays disabled.
    UPDATE webhooks SET disabled = false, updated_at = now()
    FROM delivery
    WHERE webhooks.id = delivery.webhook_id AND delivery.kind = 'verification' AND delivery.status = 'succeeded'
      AND webhooks.url = delivery.url
    RETURNING 1
  ), deactivated AS (
    UPDATE webhooks SET disabled = true, disabled_at = now(), updated_at = now()
    FROM delivery
    WHERE webhooks.id = delivery.webhook_id AND NOT webhooks.disabled
      AND delivery.kind = 'scheduled' AND delivery.status = 'failed'
    RETURNING 1
  ), retry AS (
    SELECT laurel_add_delivery_job(id, now() + make_interval(secs => next_attempt_seconds)) FROM delivery
    WHERE kind = 'scheduled' AND status = 'pending'
  ), commit_mode AS (
    -- The job's own completion (graphile-worker, right after) commits synchronously and so makes
    -- scheduled attempts durable too; if it never comes, the job runs again. So when only such
    -- attempts are recorded, the commit need not wait for its own fsync. Verifications and manual
    -- retries answer a client: they do.
    SELECT set_config('synchronous_commit', CASE WHEN bool_and(kind = 'scheduled') THEN 'off' ELSE 'on' END, true)
    FROM attempt
  ), loaded AS (
    -- Each row looked up by its key (LATERAL ... LIMIT 1 keeps these nested index lookups): the
    -- plan is kept for any number of deliveries, and must not turn into scans of whole tables.
    SELECT d.id::text AS "deliveryId", d.status::text AS status, d.attempts, w.disabled, w.url,
           w.account_address AS "accountAddress", e.event, e.idempotency_key AS "idempotencyKey", e.payload,
           e.request_id AS "requestId", d.webhook_id AS "webhookId",
           coalesce(d.first_attempt_until > now(), false) AS "firstAttemptHeld",
           s.secret_encrypted AS "secretEncrypted", s.previous_secret_encrypted AS "previousSecretEncrypted"
    FROM webhook_deliveries d
    CROSS JOIN LATERAL (SELECT * FROM webhooks WHERE webhooks.id = d.webhook_id LIMIT 1) w
    CROSS JOIN LATERAL (SELECT * FROM webhook_events WHERE webhook_events.id = d.event_id LIMIT 1) e
    LEFT JOIN LATERAL (
      SELECT secret_encrypted,
             CASE WHEN previous_expires_at > now() THEN previous_secret_encrypted END AS previous_secret_encrypted
      FROM webhook_secrets WHERE webhook_secrets.account_address = w.account_address LIMIT 1
    ) s ON true
    WHERE d.id = ANY(ARRAY(SELECT value::bigint FROM json_array_elements_text($1::json)))
  )
  -- One row, whatever was asked; the SELECT-only parts run because they are referenced here.
  SELECT (SELECT count(*) FROM retry) AS retried,
         (SELECT count(*) FROM commit_mode) AS commit_mode,
         (SELECT count(*) FROM activated) + (SELECT count(*) FROM deactivated) AS webhooks_changed,
         (SELECT coalesce(json_agg(loaded), '[]') FROM loaded) AS loaded,
         CASE WHEN $4::boolean THEN (SELECT coalesce(json_agg(json_build_object(
           'id', id::text, 'deliveryId', delivery_id::text, 'webhookId', webhook_id, 'attempt', attempt,
           'url', url, 'successful', successful, 'responseCode', response_code,
           'responseBody', response_body, 'errorMessage', error_message, 'durationMs', duration_ms,
           'createdAt', created_at)), '[]') FROM log) END AS logs`;

/** An attempt as the statement reads it (json_to_recordset). */
interface AttemptRow {
  delivery_id: string;
  successful: boolean;
  kind: AttemptKind;
  url: string;
  response_code: number | null;
  response_body: string | null;
  error_message: string | null;
  duration_ms: number;
  next_attempt_seconds: number;
}

type StoredLog = Omit<WebhookAttemptLog, 'id' | 'deliveryId' | 'createdAt'> & {
  id: string;
  deliveryId: string;
  createdAt: string;
};

interface StatementRow {
  loaded: (LoadedDelivery & { deliveryId: string })[];
  logs: StoredLog[] | null;
}

/** What a job's attempt asks of the batched statement: a delivery to load, or an attempt to record. */
type Ask = { load: string } | { record: AttemptRecord };

/** The answer to one ask: the delivery loaded (undefined when gone; nothing for a record), or its failure. */
type Answer = { ok: true; loaded?: LoadedDelivery } | { ok: false; error: unknown };

/** Every account's job attempts go through one batch. */
const JOB_ATTEMPTS = 'job attempts';

function loadedOf(row: StatementRow): Map<string, LoadedDelivery> {
  return new Map(row.loaded.map(({ deliveryId, ...delivery }) => [deliveryId, delivery]));
}

function answered(answer: Answer): LoadedDelivery | undefined {
  if (!answer.ok) throw answer.error;
  return answer.loaded;
}

/**
 * The statements of delivery attempts: loading a delivery with what its call needs, and
 * recording attempts. Job attempts go through a per-process batch: while one statement is on its
 * way, the loads and records asked for meanwhile wait and then go together as the next one, so
 * busy workers make one round trip for several deliveries (each attempt's log row still commits in
 * the same transaction as its result). Attempts that answer a client (verification, manual resend)
 * are recorded at once, in a statement of their own.
 */
export class WebhookDeliveriesRepository {
  private readonly batches = new KeyedBatches<Ask, Answer>(Infinity, (asks) => this.serve(asks), {
    // What the callbacks of one event-loop turn ask for goes together.
    gatherTurn: true,
    // Two attempts of one delivery never share a statement (its UPDATE would count only one).
    admit: () => {
      const recorded = new Set<bigint>();
      return (ask) => {
        if (!('record' in ask)) return true;
        if (recorded.has(ask.record.deliveryId)) return false;
        recorded.add(ask.record.deliveryId);
        return true;
      };
    },
  });

  constructor(private readonly pool: Pool) {}

  /** The delivery, its webhook, event and the account's (encrypted) secrets; undefined when gone. */
  load(deliveryId: bigint): Promise<LoadedDelivery | undefined> {
    return this.batches.submit(JOB_ATTEMPTS, { load: deliveryId.toString() }).then(answered);
  }

  /** Records a job's attempt (batched with others of this process). */
  async recordScheduled(attempt: AttemptRecord): Promise<void> {
    answered(await this.batches.submit(JOB_ATTEMPTS, { record: attempt }));
  }

  /** Records one attempt now and returns its log row; null when the delivery is gone (webhook deleted). */
  async recordNow(attempt: AttemptRecord): Promise<WebhookAttemptLog | null> {
    const row = await this.execute([], [attempt], true).catch((error: unknown) =>
      this.recordWithoutReceiverText(attempt, error, true),
    );
    const log = row.logs?.[0];
    if (!log) return null;
    return {
      ...log,
      id: BigInt(log.id),
      deliveryId: BigInt(log.deliveryId),
      createdAt: new Date(log.createdAt),
    };
  }

  /** One statement for a batch's loads (each delivery once) and records. */
  private async serve(asks: Ask[]): Promise<Answer[]> {
    const loadIds = [...new Set(asks.flatMap((ask) => ('load' in ask ? [ask.load] : [])))];
    const records = asks.flatMap((ask) => ('record' in ask ? [ask.record] : []));
    try {
      const loaded = loadedOf(await this.execute(loadIds, records, false));
      return asks.map((ask) => ({ ok: true, loaded: 'load' in ask ? loaded.get(ask.load) : undefined }));
    } catch (error) {
      // One statement for every account's attempts: a row it refuses must not fail the others
      // (their jobs would run again and call their receivers twice). Each goes on its own then.
      return this.settleOneByOne(asks, loadIds, records.length, error);
    }
  }

  /** After a batch failed: the loads in a statement of their own, then each attempt alone. */
  private async settleOneByOne(
    asks: Ask[],
    loadIds: string[],
    records: number,
    batchError: unknown,
  ): Promise<Answer[]> {
    const single = loadIds.length + records === 1;
    const loads: Map<string, LoadedDelivery> | { error: unknown } = loadIds.length
      ? await this.execute(loadIds, [], false).then(loadedOf, (error: unknown) => ({ error }))
      : new Map();
    const answers: Answer[] = [];
    for (const ask of asks) {
      if ('load' in ask) {
        answers.push(
          loads instanceof Map
            ? { ok: true, loaded: loads.get(ask.load) }
            : { ok: false, error: loads.error },
        );
        continue;
      }
      answers.push(
        await (single ? Promise.reject(batchError) : this.execute([], [ask.record], false))
          .catch((error: unknown) => this.recordWithoutReceiverText(ask.record, error, false))
          .then(
            (): Answer => ({ ok: true }),
            (error: unknown): Answer => ({ ok: false, error }),
          ),
      );
    }
    return answers;
  }

  /**
   * An attempt the database refused for its content (isRefusedForItsData) is recorded again
   * without the receiver's text, so that it still counts (the delivery moves on, the webhook
   * can be deactivated) and its job is not run again to make a new call. Any other error stands.
   */
  private recordWithoutReceiverText(
    attempt: AttemptRecord,
    error: unknown,
    returnLogs: boolean,
  ): Promise<StatementRow> {
    if (!isRefusedForItsData(error)) return Promise.reject(error);
    const { result } = attempt;
    return this.execute(
      [],
      [
        {
          ...attempt,
          result: {
            ...result,
            responseBody: null,
            errorMessage: `the receiver's answer could not be stored (SQLSTATE ${error.code})`,
          },
        },
      ],
      returnLogs,
    );
  }

  private async execute(
    loadIds: string[],
    attempts: AttemptRecord[],
    returnLogs: boolean,
  ): Promise<StatementRow> {
    const attemptRows: AttemptRow[] = attempts.map(
      ({ deliveryId, kind, url, result, nextAttemptDelayMs }) => ({
        delivery_id: deliveryId.toString(),
        successful: result.successful,
        kind,
        url,
        response_code: result.responseCode,
        response_body: result.responseBody,
        error_message: result.errorMessage,
        duration_ms: result.durationMs,
        next_attempt_seconds: nextAttemptDelayMs / 1000,
      }),
    );
    const { rows } = await this.pool.query<StatementRow>({
      name: 'webhook_deliveries_record_and_load',
      text: RECORD_AND_LOAD_SQL,
      values: [JSON.stringify(loadIds), JSON.stringify(attemptRows), WEBHOOK_MAX_ATTEMPTS, returnLogs],
    });
    return rows[0]!;
  }
}
