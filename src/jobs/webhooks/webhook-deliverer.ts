import type { Config } from '../../config';
import type { Pool } from 'pg';
import type { Prisma, PrismaClient } from '../../db/prisma';
import type { WebhookSecrets } from '../../modules/webhooks/webhook-secrets';
import type { WebhookCallResult, WebhookHttpClient } from './webhook-http-client';
import { jobs } from '../jobs';
import { deliveryJobKey, newIdempotencyKey, TEST_EVENT } from './webhook-events';
import { retryDelayMs, WEBHOOK_MAX_ATTEMPTS } from './webhook-retry-schedule';
import { signWebhookCall } from './webhook-signature';

export interface WebhookDelivererDeps {
  prisma: PrismaClient;
  /** The same database as `prisma`: the per-attempt statements run on it directly, prepared once per connection. */
  pool: Pool;
  secrets: WebhookSecrets;
  client: WebhookHttpClient;
  config: Config['webhooks'];
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

/** How an attempt's outcome moves its delivery (and its webhook) on. */
type AttemptKind =
  /** A job's attempt: success ends the delivery, failure schedules the next or deactivates. */
  | 'scheduled'
  /** A resend asked for by the owner: logged, the delivery succeeds on 2xx, no schedule change. */
  | 'manual'
  /** The `test` call: success (the challenge answered) activates the webhook. */
  | 'verification';

/** A delivery with what its call needs, read in one query. */
interface LoadedDelivery {
  status: string;
  attempts: number;
  disabled: boolean;
  url: string;
  accountAddress: string;
  event: string;
  idempotencyKey: string;
  payload: Prisma.JsonValue;
  secretEncrypted: string | null;
}

/** The outcome of POST /webhook/:id/test. */
export interface VerificationOutcome {
  activated: boolean;
  /** Why the webhook was not activated (status code, body, certificate, timeout, refused address). */
  reason: string | null;
  log: WebhookAttemptLog;
}

/** A delivery with its webhook, event and the account's (encrypted) secret. $1: delivery id. */
const LOAD_DELIVERY_SQL = `
  SELECT d.status::text AS status, d.attempts, w.disabled, w.url, w.account_address AS "accountAddress",
         e.event, e.idempotency_key AS "idempotencyKey", e.payload,
         s.secret_encrypted AS "secretEncrypted"
  FROM webhook_deliveries d
  JOIN webhooks w ON w.id = d.webhook_id
  JOIN webhook_events e ON e.id = d.event_id
  LEFT JOIN webhook_secrets s ON s.account_address = w.account_address
  WHERE d.id = $1::bigint`;

/**
 * An attempt's log row and its consequence, in one statement (see record()). $1 delivery id,
 * $2 successful, $3 attempt kind, $4 WEBHOOK_MAX_ATTEMPTS, $5..$9 url, response code, body, error
 * and duration, $10..$13 the next attempt's job: task, key, delay in seconds, job attempts.
 */
const RECORD_ATTEMPT_SQL = `
  WITH delivery AS (
    UPDATE webhook_deliveries SET
      attempts = attempts + 1,
      updated_at = now(),
      status = CASE
        WHEN $2::boolean THEN 'succeeded'
        WHEN $3::text = 'verification' OR ($3::text = 'scheduled' AND attempts + 1 >= $4::int) THEN 'failed'
        ELSE status END::webhook_delivery_status
    WHERE id = $1::bigint
    RETURNING id, webhook_id, attempts, status
  ), log AS (
    INSERT INTO webhook_logs (delivery_id, webhook_id, attempt, url, successful, response_code,
                              response_body, error_message, duration_ms)
    SELECT id, webhook_id, attempts, $5::text, $2::boolean, $6::int, $7::text, $8::text, $9::int
    FROM delivery
    RETURNING *
  ), activated AS (
    UPDATE webhooks SET disabled = false, disabled_at = NULL, updated_at = now()
    FROM delivery
    WHERE webhooks.id = delivery.webhook_id AND $3::text = 'verification' AND delivery.status = 'succeeded'
    RETURNING 1
  ), deactivated AS (
    UPDATE webhooks SET disabled = true, disabled_at = now(), updated_at = now()
    FROM delivery
    WHERE webhooks.id = delivery.webhook_id AND NOT webhooks.disabled
      AND $3::text = 'scheduled' AND delivery.status = 'failed'
    RETURNING 1
  ), commit_mode AS (
    -- The job's own completion (graphile-worker, right after) commits synchronously and so makes
    -- this attempt durable too; if it never comes, the job runs again. So a scheduled attempt
    -- need not wait for its own fsync. Verifications and manual retries answer a client: they do.
    SELECT set_config('synchronous_commit', CASE WHEN $3::text = 'scheduled' THEN 'off' ELSE 'on' END, true)
  ), retry AS (
    SELECT graphile_worker.add_job(
      identifier => $10::text,
      payload => json_build_object('deliveryId', delivery.id::text),
      job_key => $11::text,
      run_at => now() + make_interval(secs => $12::double precision),
      max_attempts => $13::int
    ) FROM delivery
    WHERE $3::text = 'scheduled' AND delivery.status = 'pending'
  )
  SELECT log.id, log.delivery_id AS "deliveryId", log.webhook_id AS "webhookId", log.attempt, log.url,
         log.successful, log.response_code AS "responseCode", log.response_body AS "responseBody",
         log.error_message AS "errorMessage", log.duration_ms AS "durationMs", log.created_at AS "createdAt"
  FROM log
  -- Referenced so that they run: a CTE that is not a data-modifying statement runs only when used.
  WHERE (SELECT count(*) FROM retry) >= 0 AND (SELECT count(*) FROM activated) >= 0
    AND (SELECT count(*) FROM deactivated) >= 0 AND (SELECT count(*) FROM commit_mode) >= 0`;

/** A log row as node-postgres reads it (bigint columns as strings). */
type StoredAttemptLog = Omit<WebhookAttemptLog, 'id' | 'deliveryId'> & { id: string; deliveryId: string };

/**
 * Makes webhook calls and records each attempt. An attempt is: sign, POST (WebhookHttpClient),
 * then one SQL statement (so one transaction) that writes the attempt's log row together with its
 * consequence: delivery done, next attempt's job enqueued, or the webhook deactivated. The hot
 * path is two prepared statements per attempt besides graphile-worker's own (see
 * `npm run bench:webhooks`).
 */
export class WebhookDeliverer {
  constructor(private readonly deps: WebhookDelivererDeps) {}

  /** One attempt of a pending delivery (the `webhook_deliveries__deliver` job). */
  async attempt(deliveryId: bigint): Promise<void> {
    const delivery = await this.load(deliveryId);
    if (!delivery || delivery.status !== 'pending') return;
    if (delivery.disabled) {
      // Deactivated (or its url changed) since the event: nothing more is sent to it.
      await this.deps.prisma.webhookDelivery.updateMany({
        where: { id: deliveryId, status: 'pending' },
        data: { status: 'cancelled' },
      });
      return;
    }
    const { result } = await this.send(delivery);
    const delayMs = retryDelayMs(
      delivery.attempts + 1,
      this.deps.config.retryBaseMs,
      result.retryAfterSeconds,
    );
    await this.record(deliveryId, delivery.url, result, 'scheduled', delayMs);
  }

  /**
   * Sends a `test` call (payload null) to the webhook now; when the receiver answers the challenge
   * (2xx, `application/json`, body exactly `{challenge: <the request's signature header>}`), the
   * webhook becomes active. The attempt is logged either way.
   */
  /** Null when the webhook was deleted during its verification (its delivery and log went with it). */
  async verify(webhookId: number): Promise<VerificationOutcome | null> {
    const webhook = await this.deps.prisma.webhook.findUniqueOrThrow({ where: { id: webhookId } });
    const { delivery, event } = await this.deps.prisma.$transaction(async (db) => {
      const created = await db.webhookEvent.create({
        data: {
          accountAddress: webhook.accountAddress,
          event: TEST_EVENT,
          idempotencyKey: newIdempotencyKey(),
        },
      });
      return {
        event: created,
        delivery: await db.webhookDelivery.create({ data: { webhookId, eventId: created.id } }),
      };
    });
    const { result, signature } = await this.send({
      url: webhook.url,
      accountAddress: webhook.accountAddress,
      event: TEST_EVENT,
      idempotencyKey: event.idempotencyKey,
      payload: null,
      secretEncrypted: null,
    });
    const reason = result.successful
      ? challengeFailure(result, signature, this.deps.config.signatureHeader)
      : result.errorMessage;
    const checked: WebhookCallResult = { ...result, successful: reason === null, errorMessage: reason };
    const log = await this.record(delivery.id, webhook.url, checked, 'verification');
    if (!log) return null;
    return { activated: reason === null, reason, log };
  }

  /** Sends a delivery's event again now, same idempotency key, as a new logged attempt. */
  async resend(deliveryId: bigint): Promise<WebhookAttemptLog | null> {
    const delivery = await this.load(deliveryId);
    if (!delivery) return null;
    const { result } = await this.send(delivery);
    return this.record(deliveryId, delivery.url, result, 'manual');
  }

  private async load(deliveryId: bigint): Promise<LoadedDelivery | undefined> {
    const { rows } = await this.deps.pool.query<LoadedDelivery>({
      name: 'webhook_delivery_load',
      text: LOAD_DELIVERY_SQL,
      values: [deliveryId.toString()],
    });
    return rows[0];
  }

  private async send(
    call: Pick<
      LoadedDelivery,
      'url' | 'accountAddress' | 'event' | 'idempotencyKey' | 'payload' | 'secretEncrypted'
    >,
  ): Promise<{ result: WebhookCallResult; signature: string }> {
    const body = JSON.stringify({
      event: call.event,
      idempotency_key: call.idempotencyKey,
      payload: call.payload,
    });
    const secret =
      call.secretEncrypted === null
        ? await this.deps.secrets.get(call.accountAddress)
        : this.deps.secrets.decrypt(call.secretEncrypted);
    const headers = signWebhookCall({
      secret,
      signatureHeader: this.deps.config.signatureHeader,
      idempotencyKey: call.idempotencyKey,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
    });
    const result = await this.deps.client.post(call.url, body, headers);
    return { result, signature: headers[this.deps.config.signatureHeader]! };
  }

  /**
   * Writes the attempt's log row and its consequence in one statement. Its UPDATE locks the
   * delivery row, so two workers finishing attempts of one delivery count them one after the
   * other. `nextAttemptDelayMs` is when a failed scheduled attempt is tried again (unless it was the
   * last). Returns null when the delivery is gone (its webhook was deleted meanwhile).
   */
  private async record(
    deliveryId: bigint,
    url: string,
    result: WebhookCallResult,
    kind: AttemptKind,
    nextAttemptDelayMs = 0,
  ): Promise<WebhookAttemptLog | null> {
    const { rows } = await this.deps.pool.query<StoredAttemptLog>({
      name: 'webhook_delivery_record',
      text: RECORD_ATTEMPT_SQL,
      values: [
        deliveryId.toString(),
        result.successful,
        kind,
        WEBHOOK_MAX_ATTEMPTS,
        url,
        result.responseCode,
        result.responseBody,
        result.errorMessage,
        result.durationMs,
        jobs.deliverWebhook.name,
        deliveryJobKey(deliveryId),
        nextAttemptDelayMs / 1000,
        jobs.deliverWebhook.maxAttempts,
      ],
    });
    const log = rows[0] && { ...rows[0], id: BigInt(rows[0].id), deliveryId: BigInt(rows[0].deliveryId) };
    return log ?? null;
  }
}

/** Why a 2xx answer to a `test` call does not meet the challenge, or null when it does. */
function challengeFailure(
  result: WebhookCallResult,
  signature: string,
  signatureHeader: string,
): string | null {
  const mediaType = result.contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return `challenge failed: content-type is ${result.contentType ?? 'missing'}, not application/json`;
  }
  let body: unknown;
  try {
    body = JSON.parse(result.responseBody ?? '');
  } catch {
    return 'challenge failed: the body is not JSON';
  }
  const fields = body !== null && typeof body === 'object' ? Object.keys(body) : [];
  if (fields.length !== 1 || (body as { challenge?: unknown }).challenge !== signature) {
    return `challenge failed: the body must be exactly {"challenge": <the ${signatureHeader} header of the request>}`;
  }
  return null;
}
