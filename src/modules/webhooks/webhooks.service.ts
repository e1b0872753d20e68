import type { Prisma } from '../../db/prisma';
import { AppError, defineFailure, RateLimitedError, ValidationError } from '../../errors';
import { KeyedCounts } from '../../keyed-counts';
import { pageOf } from '../../validation';
import type { WebhookAttemptLog } from './webhook-deliveries.repository';
import type { WebhookDeliverer } from './webhook-deliverer';
import { WEBHOOK_CALL_TIMEOUT_MS } from './webhook-http-client';
import type { FirstAttempts } from './webhook-first-attempts';
import { SUBSCRIBABLE_EVENTS } from './webhook-events';
import type { WebhookSecrets, WebhookSecretState } from './webhook-secrets';
import type { WebhookRow, WebhooksRepository } from './webhooks.repository';
import {
  DEFAULT_LOGS_PAGE_SIZE,
  type CreateWebhookInput,
  type RotateWebhookSecretInput,
  type UpdateWebhookInput,
  type WebhookLogsInput,
} from './webhooks.schema';
import type { WebhookInfo, WebhookLogEntry, WebhookLogPage, WebhookSecretPayload } from './webhooks.types';

/** Ids beyond the columns' range name nothing (rather than failing the query). */
const MAX_INT4 = 2 ** 31 - 1;
const MAX_INT8 = 2n ** 63n - 1n;
/** Events deleted per statement when pruning. */
const PRUNE_BATCH = 5_000;

export interface WebhooksServiceDeps {
  repository: WebhooksRepository;
  secrets: WebhookSecrets;
  deliverer: WebhookDeliverer;
  firstAttempts: FirstAttempts;
  limits: {
    perAccount: number;
    retentionDays: number;
    /** A rotation's window when it names none, and the longest it may name (seconds). */
    overlapSeconds: number;
    overlapMaxSeconds: number;
  };
}

/** A webhook as the interface shows it. */
function webhookInfo(row: WebhookRow): WebhookInfo {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    disabled: row.disabled,
    disabled_at: row.disabledAt,
    created_at: row.createdAt,
  };
}

/** The secret as the interface shows it, with a replaced one's expiry only while it is valid. */
function secretPayload(state: WebhookSecretState): WebhookSecretPayload {
  return {
    webhook_secret: state.secret,
    ...(state.previousExpiresAt ? { previous_secret_expires_at: state.previousExpiresAt } : {}),
  };
}

/** The interface's Shape A messages for a webhook that cannot be created (or updated). */
export const WEBHOOK_REJECTED = defineFailure({
  status: 400,
  codes: ['invalid_url', 'https_required', 'webhook_events_not_found'],
  description: '`invalid url`, `only HTTPS urls allowed`, `webhook events not found: …` (no `issues`)',
});

class WebhookRejectedError extends WEBHOOK_REJECTED.Error {}

/** A webhook's url: a valid absolute HTTPS url (where it may point is checked at each call). */
function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookRejectedError('invalid_url', 'invalid url');
  }
  if (parsed.protocol !== 'https:') {
    throw new WebhookRejectedError('https_required', 'only HTTPS urls allowed');
  }
  return parsed.toString();
}

function checkedEvents(events: string[] | undefined): string[] {
  const unknown = (events ?? []).filter(
    (event) => !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(event),
  );
  if (unknown.length) {
    throw new WebhookRejectedError(
      'webhook_events_not_found',
      `webhook events not found: ${unknown.map((event) => JSON.stringify(event)).join(', ')}; ` +
        `the events are ${SUBSCRIBABLE_EVENTS.map((event) => JSON.stringify(event)).join(', ')} (or omit events for all)`,
    );
  }
  return [...new Set(events ?? [])];
}

/** A database failure answers the interface's "database operation failed" (Shape A), not a 500. */
export const WEBHOOK_NOT_STORED = defineFailure({
  status: 503,
  codes: ['database_error'],
  description: '`database operation failed`: the webhook could not be stored; retry later',
});

class WebhookNotStoredError extends WEBHOOK_NOT_STORED.Error {
  constructor() {
    super('database operation failed');
  }
}

async function databaseOperation<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new WebhookNotStoredError();
  }
}

export const WEBHOOK_NOT_FOUND = defineFailure({
  status: 404,
  codes: ['webhook_not_found'],
  description: '`webhook not found`: no webhook of the caller’s account has this id',
});

/** 404 for a webhook that is not the account's, or that a concurrent request deleted meanwhile. */
export class WebhookNotFoundError extends WEBHOOK_NOT_FOUND.Error {
  constructor() {
    super('webhook not found');
  }
}

export const WEBHOOK_VERIFICATION_FAILED = defineFailure({
  status: 422,
  codes: ['webhook_verification_failed'],
  description:
    'The receiver did not answer the challenge (the reason: status, content-type, body, certificate, timeout, address); `webhook` is left disabled',
});

/** The receiver did not answer the challenge: the reason, with the webhook as it is left. */
class WebhookVerificationFailedError extends WEBHOOK_VERIFICATION_FAILED.Error {
  constructor(reason: string, webhook: WebhookInfo) {
    super(reason, { webhook });
  }
}

export const WEBHOOK_LOG_NOT_FOUND = defineFailure({
  status: 404,
  codes: ['webhook_log_not_found'],
  description: '`webhook log not found`: the webhook has no log entry with this id',
});

class WebhookLogNotFoundError extends WEBHOOK_LOG_NOT_FOUND.Error {
  constructor() {
    super('webhook log not found');
  }
}

export const WEBHOOK_DISABLED = defineFailure({
  status: 409,
  codes: ['webhook_disabled'],
  description:
    '`webhook is disabled: …`: a retry goes only to a verified url; a new or changed url (PATCH) or a deactivated webhook must answer POST /webhook/:id/test first',
});

/** A retry of a disabled webhook's log: nothing is sent to an unverified (or deactivated) url. */
class WebhookDisabledError extends WEBHOOK_DISABLED.Error {
  constructor() {
    super('webhook is disabled: verify its url with POST /webhook/:id/test before retrying');
  }
}

export const WEBHOOK_LIMIT_REACHED = defineFailure({
  status: 409,
  codes: ['webhook_limit_reached'],
  description:
    '`webhook limit reached: …`: the account has `WEBHOOKS_PER_ACCOUNT` webhooks; delete one first',
});

class WebhookLimitReachedError extends WEBHOOK_LIMIT_REACHED.Error {
  constructor(max: number) {
    super(`webhook limit reached: an account may have ${max} webhooks; delete one before creating another`);
  }
}

/**
 * Runs work on a webhook that another request may delete meanwhile: a row gone (Prisma P2025), a
 * reference to it refused (P2003, SQLSTATE 23503) or the deliverer's own word means 404, not 500.
 */
async function unlessDeleted<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'P2025' || code === 'P2003' || code === '23503') throw new WebhookNotFoundError();
    throw error;
  }
}

/**
 * Test calls of one account's webhooks running at once in a process. A test holds its request and
 * an outbound connection for up to a call's deadline, so an account's receivers that never answer
 * could otherwise hold the connections every other account's calls need.
 */
export const WEBHOOK_TESTS_PER_ACCOUNT = 4;

/**
 * The account's webhooks: registration, verification, secret, logs, and the management users of
 * Svix or Stripe expect. Another account's webhook is "not found". Calls are made by the
 * WebhookDeliverer.
 */
export class WebhooksService {
  /** Test calls running, per account. */
  private readonly testsRunning = new KeyedCounts<string>();

  constructor(private readonly deps: WebhooksServiceDeps) {}

  /** Makes the calls and records their attempts (the delivery job runs its `attempt`). */
  get deliverer(): WebhookDeliverer {
    return this.deps.deliverer;
  }

  /** The first attempts of deliveries whose event this process records (the transactions module's receipts). */
  get firstAttempts(): FirstAttempts {
    return this.deps.firstAttempts;
  }

  /** Waits for the first attempts under way, and starts no more. */
  stop(): Promise<void> {
    return this.deps.firstAttempts.stop();
  }

  get secrets(): WebhookSecrets {
    return this.deps.secrets;
  }

  async create(input: CreateWebhookInput, accountAddress: string): Promise<WebhookInfo> {
    const url = checkedUrl(input.url);
    const events = checkedEvents(input.events);
    const max = this.deps.limits.perAccount;
    const row = await databaseOperation(() => this.deps.repository.create(accountAddress, url, events, max));
    if (!row) throw new WebhookLimitReachedError(max);
    return webhookInfo(row);
  }

  async list(accountAddress: string): Promise<WebhookInfo[]> {
    return (await this.deps.repository.list(accountAddress)).map(webhookInfo);
  }

  async get(id: number, accountAddress: string): Promise<WebhookInfo> {
    return webhookInfo(await this.owned(id, accountAddress));
  }

  /** A changed url is disabled until verified again; pending deliveries to the old one are cancelled. */
  async update(input: UpdateWebhookInput, accountAddress: string): Promise<WebhookInfo> {
    const current = await this.owned(Number(input.id), accountAddress);
    const url = input.url === undefined ? current.url : checkedUrl(input.url);
    const events = input.events === undefined ? current.events : checkedEvents(input.events);
    const urlChanged = url !== current.url;
    const row = await unlessDeleted(
      this.deps.repository.update(current.id, { url, events, disable: urlChanged }),
    );
    return webhookInfo(row);
  }

  /** Deletes the webhook with its logs; its pending deliveries are cancelled (their jobs removed). */
  async delete(id: number, accountAddress: string): Promise<WebhookInfo> {
    const webhook = await this.owned(id, accountAddress);
    await unlessDeleted(this.deps.repository.delete(id));
    return webhookInfo(webhook);
  }

  /**
   * Sends the `test` call; the webhook is active when its receiver answered the challenge. When it
   * did not: Shape A with the reason (422), the webhook left (or put back) disabled.
   */
  async test(id: number, accountAddress: string): Promise<WebhookInfo> {
    await this.owned(id, accountAddress);
    if (this.testsRunning.get(accountAddress) >= WEBHOOK_TESTS_PER_ACCOUNT) {
      throw new RateLimitedError(Math.ceil(WEBHOOK_CALL_TIMEOUT_MS / 1000), 'webhook_tests_per_account');
    }
    this.testsRunning.add(accountAddress, 1);
    let outcome: Awaited<ReturnType<WebhookDeliverer['verify']>>;
    try {
      outcome = await unlessDeleted(this.deps.deliverer.verify(id));
    } finally {
      this.testsRunning.add(accountAddress, -1);
    }
    if (!outcome) throw new WebhookNotFoundError();
    const webhook = await this.get(id, accountAddress);
    if (!outcome.activated || webhook.disabled) {
      // Answered, but a PATCH changed the url meanwhile: the new one is not verified.
      const reason = outcome.reason ?? 'the url changed during its verification: verify the new url';
      throw new WebhookVerificationFailedError(reason, webhook);
    }
    return webhook;
  }

  async secret(accountAddress: string): Promise<WebhookSecretPayload> {
    return secretPayload(await this.deps.secrets.state(accountAddress));
  }

  /**
   * A new secret; the replaced one keeps signing calls for `overlap_seconds` (default
   * WEBHOOK_SECRET_OVERLAP_SECONDS, at most WEBHOOK_SECRET_OVERLAP_MAX_SECONDS).
   */
  async rotateSecret(input: RotateWebhookSecretInput, accountAddress: string): Promise<WebhookSecretPayload> {
    const { overlapSeconds: fallback, overlapMaxSeconds: max } = this.deps.limits;
    const overlapSeconds = input.overlap_seconds ?? fallback;
    if (overlapSeconds > max) {
      throw ValidationError.field(
        'overlap_seconds',
        `must be at most ${max} seconds (WEBHOOK_SECRET_OVERLAP_MAX_SECONDS)`,
        'too_big',
      );
    }
    return secretPayload(await this.deps.secrets.rotate(accountAddress, overlapSeconds));
  }

  async logs(input: WebhookLogsInput, accountAddress: string): Promise<WebhookLogPage> {
    const { page, pageSize, offset } = pageOf(input, DEFAULT_LOGS_PAGE_SIZE);
    const webhook = await this.owned(Number(input.id), accountAddress);
    const { total, rows } = await this.deps.repository.logsPage(webhook.id, offset, pageSize);
    return {
      total,
      page,
      page_size: pageSize,
      data: rows.map((row) => logEntry(row, row.delivery.event)),
    };
  }

  /** Sends a logged event again (same idempotency key) as a new attempt; answers that attempt. */
  async retry(id: number, logId: bigint, accountAddress: string): Promise<WebhookLogEntry> {
    const webhook = await this.owned(id, accountAddress);
    const log = logId <= MAX_INT8 && (await this.deps.repository.findLog(logId, webhook.id));
    if (!log) throw new WebhookLogNotFoundError();
    if (webhook.disabled) throw new WebhookDisabledError();
    const attempt = await this.deps.deliverer.resend(log.deliveryId);
    if (attempt === 'disabled') throw new WebhookDisabledError();
    if (!attempt) throw new WebhookNotFoundError();
    return logEntry(attempt, log.delivery.event);
  }

  /**
   * Housekeeping (maintenance__prune): events older than WEBHOOK_LOG_RETENTION_DAYS go with their
   * deliveries and logs, in statements of PRUNE_BATCH events (short transactions).
   */
  async pruneExpired(): Promise<Record<string, number>> {
    let events = 0;
    let deleted: number;
    do {
      deleted = await this.deps.repository.pruneEvents(this.deps.limits.retentionDays, PRUNE_BATCH);
      events += deleted;
    } while (deleted === PRUNE_BATCH);
    return { 'webhook events (with their deliveries and logs)': events };
  }

  private async owned(id: number, accountAddress: string): Promise<WebhookRow> {
    const row = id <= MAX_INT4 ? await this.deps.repository.findOwned(id, accountAddress) : null;
    if (!row) throw new WebhookNotFoundError();
    return row;
  }
}

function logEntry(
  log: WebhookAttemptLog,
  event: { event: string; idempotencyKey: string; payload: Prisma.JsonValue },
): WebhookLogEntry {
  return {
    id: log.id.toString(),
    payload: event.payload,
    webhook_id: log.webhookId,
    event: event.event,
    idempotency_key: event.idempotencyKey,
    url: log.url,
    attempt: log.attempt,
    successful: log.successful,
    response_code: log.responseCode,
    error_message: log.errorMessage,
    created_at: log.createdAt,
  };
}
