import type { Config } from '../../config';
import type { Logger } from '../../logger';
import type { LaurelMetrics } from '../../metrics';
import type {
  AttemptKind,
  LoadedDelivery,
  WebhookAttemptLog,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';
import { challengeRules, TEST_EVENT, type ChallengeRule } from './webhook-events';
import type { WebhookCallResult, WebhookHttpClient } from './webhook-http-client';
import { retryDelayMs, WEBHOOK_MAX_ATTEMPTS } from './webhook-retry-schedule';
import type { WebhookSecrets } from './webhook-secrets';
import { signWebhookCall } from './webhook-signature';
import type { WebhooksRepository } from './webhooks.repository';

export interface WebhookDelivererDeps {
  webhooks: WebhooksRepository;
  /** The per-attempt statements, prepared once per connection. */
  deliveries: WebhookDeliveriesRepository;
  secrets: WebhookSecrets;
  client: WebhookHttpClient;
  config: Config['webhooks'];
  metrics: LaurelMetrics | null;
  log: Logger;
}

/** The outcome of POST /webhook/:id/test. */
export interface VerificationOutcome {
  activated: boolean;
  /** Why the webhook was not activated (status code, body, certificate, timeout, refused address). */
  reason: string | null;
  log: WebhookAttemptLog;
}

/**
 * Makes webhook calls and records each attempt. An attempt is: load the delivery, sign, POST
 * (WebhookHttpClient), then one SQL statement (so one transaction) that writes the attempt's log
 * row together with its consequence: delivery done, next attempt's job enqueued, or the webhook
 * deactivated. Job attempts load and record through the repository's per-process batch (see
 * WebhookDeliveriesRepository and `npm run bench:webhooks`).
 */
export class WebhookDeliverer {
  constructor(private readonly deps: WebhookDelivererDeps) {}

  /** One attempt of a pending delivery (the `webhook_deliveries__deliver` job). */
  attempt(deliveryId: bigint): Promise<void> {
    return this.scheduledAttempt(deliveryId, false);
  }

  /**
   * The first attempt of a delivery, made by the process that recorded its event (FirstAttempts),
   * unless its lease ran out meanwhile: the delivery is then its job's.
   */
  firstAttempt(deliveryId: bigint): Promise<void> {
    return this.scheduledAttempt(deliveryId, true);
  }

  private async scheduledAttempt(deliveryId: bigint, first: boolean): Promise<void> {
    const delivery = await this.deps.deliveries.load(deliveryId);
    if (!delivery || delivery.status !== 'pending') return;
    if (first && !delivery.firstAttemptHeld) return;
    if (delivery.disabled) {
      // Deactivated (or its url changed) since the event: nothing more is sent to it.
      await this.deps.webhooks.cancelDelivery(deliveryId);
      return;
    }
    const { result } = await this.send(delivery);
    const attempt = delivery.attempts + 1;
    this.count(attempt, result);
    // With the id of the request that caused the event: a failed call at info, a delivered one at debug.
    const log = delivery.requestId ? this.deps.log.child({ requestId: delivery.requestId }) : this.deps.log;
    log[result.successful ? 'debug' : 'info'](
      {
        deliveryId: deliveryId.toString(),
        webhookId: delivery.webhookId,
        event: delivery.event,
        attempt,
        responseCode: result.responseCode,
        ...(result.errorMessage ? { error: result.errorMessage } : {}),
      },
      result.successful ? 'webhook delivered' : 'webhook call failed',
    );
    if (!result.successful && attempt >= WEBHOOK_MAX_ATTEMPTS) this.deps.metrics?.webhooksDeactivated.inc();
    const nextAttemptDelayMs = retryDelayMs(
      delivery.attempts + 1,
      this.deps.config.retryBaseMs,
      result.retryAfterSeconds,
    );
    await this.deps.deliveries.recordScheduled({
      deliveryId,
      kind: 'scheduled',
      url: delivery.url,
      result,
      nextAttemptDelayMs,
    });
  }

  /**
   * Sends a `test` call (payload null) to the webhook now; when the receiver answers the challenge
   * (2xx, `application/json`, body exactly `{challenge: <the request's signature header>}`), the
   * webhook becomes active. The attempt is logged either way. Null when the webhook was deleted
   * during its verification (its delivery and log went with it).
   */
  async verify(webhookId: number): Promise<VerificationOutcome | null> {
    const webhook = await this.deps.webhooks.findById(webhookId);
    if (!webhook) return null;
    const { deliveryId, idempotencyKey } = await this.deps.webhooks.createTestDelivery(webhook);
    const { result, signature } = await this.send({
      url: webhook.url,
      accountAddress: webhook.accountAddress,
      event: TEST_EVENT,
      idempotencyKey,
      payload: null,
      // The challenge proves the receiver holds the current secret: signed with it alone.
      secretEncrypted: null,
      previousSecretEncrypted: null,
    });
    const reason = challengeFailure(result, signature, this.deps.config.signatureHeader);
    const checked: WebhookCallResult = { ...result, successful: reason === null, errorMessage: reason };
    const log = await this.recordNow(deliveryId, webhook.url, checked, 'verification');
    if (!log) return null;
    return { activated: reason === null, reason, log };
  }

  /**
   * Sends a delivery's event again now, same idempotency key, as a new logged attempt; `disabled`
   * (nothing sent) while its webhook is disabled: its url is not verified (new, or changed by
   * PATCH) or it was deactivated, and only the `test` call goes to it then.
   */
  async resend(deliveryId: bigint): Promise<WebhookAttemptLog | null | 'disabled'> {
    const delivery = await this.deps.deliveries.load(deliveryId);
    if (!delivery) return null;
    if (delivery.disabled) return 'disabled';
    const { result } = await this.send(delivery);
    this.count(delivery.attempts + 1, result);
    return this.recordNow(deliveryId, delivery.url, result, 'manual');
  }

  /** One call in the metrics: its outcome, its attempt number (`6+` past the schedule's five), its time. */
  private count(attempt: number, result: WebhookCallResult): void {
    const { metrics } = this.deps;
    if (!metrics) return;
    const outcome = result.successful ? 'succeeded' : 'failed';
    metrics.webhookDeliveries.inc({
      outcome,
      attempt: attempt > WEBHOOK_MAX_ATTEMPTS ? '6+' : String(attempt),
    });
    metrics.webhookDeliveryDuration.observe(result.durationMs / 1000);
  }

  private async send(
    call: Pick<
      LoadedDelivery,
      | 'url'
      | 'accountAddress'
      | 'event'
      | 'idempotencyKey'
      | 'payload'
      | 'secretEncrypted'
      | 'previousSecretEncrypted'
    >,
  ): Promise<{ result: WebhookCallResult; signature: string }> {
    const body = JSON.stringify({
      event: call.event,
      idempotency_key: call.idempotencyKey,
      payload: call.payload,
    });
    const key =
      call.secretEncrypted === null
        ? await this.deps.secrets.signingKeyOf(call.accountAddress)
        : this.deps.secrets.signingKey(call.secretEncrypted);
    const headers = signWebhookCall({
      key,
      previousKey:
        call.previousSecretEncrypted === null
          ? null
          : this.deps.secrets.signingKey(call.previousSecretEncrypted),
      signatureHeader: this.deps.config.signatureHeader,
      idempotencyKey: call.idempotencyKey,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
    });
    const result = await this.deps.client.post(call.url, body, headers);
    return { result, signature: headers[this.deps.config.signatureHeader]! };
  }

  /** Records an attempt that answers a client, at once; null when the delivery is gone (webhook deleted). */
  private recordNow(
    deliveryId: bigint,
    url: string,
    result: WebhookCallResult,
    kind: Exclude<AttemptKind, 'scheduled'>,
  ): Promise<WebhookAttemptLog | null> {
    return this.deps.deliveries.recordNow({ deliveryId, kind, url, result, nextAttemptDelayMs: 0 });
  }
}

/**
 * Why an answer to a `test` call does not meet the challenge, or null when it does: the reason,
 * the rule it breaks, and the four rules whole, so a receiver is told everything at its first try.
 */
function challengeFailure(
  result: WebhookCallResult,
  signature: string,
  signatureHeader: string,
): string | null {
  const broken = brokenChallengeRule(result, signature, signatureHeader);
  if (!broken) return null;
  return `${broken.reason} (breaks rule ${broken.rule}). ${challengeRules(signatureHeader)}`;
}

function brokenChallengeRule(
  result: WebhookCallResult,
  signature: string,
  signatureHeader: string,
): { rule: ChallengeRule; reason: string } | null {
  if (!result.successful) {
    const reason = result.errorMessage ?? `receiver answered HTTP ${result.responseCode}`;
    return { rule: reason.startsWith('certificate error') ? 1 : 2, reason };
  }
  const mediaType = result.contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return {
      rule: 3,
      reason: `challenge failed: content-type is ${result.contentType ?? 'missing'}, not application/json`,
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(result.responseBody ?? '');
  } catch {
    return { rule: 4, reason: 'challenge failed: the body is not JSON' };
  }
  const fields = body !== null && typeof body === 'object' ? Object.keys(body) : [];
  if (fields.length !== 1 || (body as { challenge?: unknown }).challenge !== signature) {
    return {
      rule: 4,
      reason: `challenge failed: the body must be exactly {"challenge": <the ${signatureHeader} header of the request>}`,
    };
  }
  return null;
}
