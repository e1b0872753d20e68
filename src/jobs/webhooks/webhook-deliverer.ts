import type { Config } from '../../config';
import type { Prisma, PrismaClient } from '../../db/prisma';
import type { WebhookSecrets } from '../../modules/webhooks/webhook-secrets';
import { enqueueJob } from '../queue';
import type { WebhookCallResult, WebhookHttpClient } from './webhook-http-client';
import {
  DELIVER_JOB_MAX_ATTEMPTS,
  DELIVER_TASK,
  deliveryJobKey,
  newIdempotencyKey,
  TEST_EVENT,
} from './webhook-events';
import { retryDelayMs, WEBHOOK_MAX_ATTEMPTS } from './webhook-retry-schedule';
import { signWebhookCall } from './webhook-signature';

export interface WebhookDelivererDeps {
  prisma: PrismaClient;
  secrets: WebhookSecrets;
  client: WebhookHttpClient;
  config: Config['webhooks'];
}

/** The log row of one attempt, as stored. */
export type WebhookLogRow = Prisma.WebhookLogGetPayload<object>;

/** How an attempt's outcome moves its delivery (and its webhook) on. */
type AttemptKind =
  /** A job's attempt: success ends the delivery, failure schedules the next or deactivates. */
  | 'scheduled'
  /** A resend asked for by the owner: logged, the delivery succeeds on 2xx, no schedule change. */
  | 'manual'
  /** The `test` call: success (the challenge answered) activates the webhook. */
  | 'verification';

interface Call {
  url: string;
  accountAddress: string;
  event: string;
  idempotencyKey: string;
  payload: Prisma.JsonValue;
}

/** The outcome of POST /webhook/:id/test. */
export interface VerificationOutcome {
  activated: boolean;
  /** Why the webhook was not activated (status code, body, certificate, timeout, refused address). */
  reason: string | null;
  log: WebhookLogRow;
}

const DELIVERY_INCLUDE = { webhook: true, event: true } as const;

/**
 * Makes webhook calls and records each attempt. An attempt is: sign, POST (WebhookHttpClient),
 * then one database transaction that writes the attempt's log row together with its consequence
 * (delivery done, next attempt's job enqueued, or the webhook deactivated).
 */
export class WebhookDeliverer {
  constructor(private readonly deps: WebhookDelivererDeps) {}

  /** One attempt of a pending delivery (the `webhook_deliveries__deliver` job). */
  async attempt(deliveryId: bigint): Promise<void> {
    const delivery = await this.deps.prisma.webhookDelivery.findUnique({
      where: { id: deliveryId },
      include: DELIVERY_INCLUDE,
    });
    if (!delivery || delivery.status !== 'pending') return;
    if (delivery.webhook.disabled) {
      // Deactivated (or its url changed) since the event: nothing more is sent to it.
      await this.deps.prisma.webhookDelivery.updateMany({
        where: { id: deliveryId, status: 'pending' },
        data: { status: 'cancelled' },
      });
      return;
    }
    const call = this.callOf(delivery);
    const { result } = await this.send(call);
    await this.record(deliveryId, call.url, result, 'scheduled');
  }

  /**
   * Sends a `test` call (payload null) to the webhook now; when the receiver answers the challenge
   * (2xx, `application/json`, body exactly `{challenge: <the request's signature header>}`), the
   * webhook becomes active. The attempt is logged either way.
   */
  async verify(webhookId: number): Promise<VerificationOutcome> {
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
    });
    const reason = result.successful
      ? challengeFailure(result, signature, this.deps.config.signatureHeader)
      : result.errorMessage;
    const checked: WebhookCallResult = { ...result, successful: reason === null, errorMessage: reason };
    const log = await this.record(delivery.id, webhook.url, checked, 'verification');
    // The webhook was deleted during the call: its delivery (and log) went with it.
    if (!log) throw new Error(`webhook ${webhookId} was deleted during its verification`);
    return { activated: reason === null, reason, log };
  }

  /** Sends a delivery's event again now, same idempotency key, as a new logged attempt. */
  async resend(deliveryId: bigint): Promise<WebhookLogRow | null> {
    const delivery = await this.deps.prisma.webhookDelivery.findUnique({
      where: { id: deliveryId },
      include: DELIVERY_INCLUDE,
    });
    if (!delivery) return null;
    const call = this.callOf(delivery);
    const { result } = await this.send(call);
    return this.record(deliveryId, call.url, result, 'manual');
  }

  private callOf(delivery: Prisma.WebhookDeliveryGetPayload<{ include: typeof DELIVERY_INCLUDE }>): Call {
    return {
      url: delivery.webhook.url,
      accountAddress: delivery.webhook.accountAddress,
      event: delivery.event.event,
      idempotencyKey: delivery.event.idempotencyKey,
      payload: delivery.event.payload,
    };
  }

  private async send(call: Call): Promise<{ result: WebhookCallResult; signature: string }> {
    const body = JSON.stringify({
      event: call.event,
      idempotency_key: call.idempotencyKey,
      payload: call.payload,
    });
    const headers = signWebhookCall({
      secret: await this.deps.secrets.get(call.accountAddress),
      signatureHeader: this.deps.config.signatureHeader,
      idempotencyKey: call.idempotencyKey,
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
    });
    const result = await this.deps.client.post(call.url, body, headers);
    return { result, signature: headers[this.deps.config.signatureHeader]! };
  }

  /**
   * Writes the attempt's log row and its consequence in one transaction, with the delivery row
   * locked (two workers finishing attempts of one delivery count them one after the other).
   * Returns null when the delivery is gone (its webhook was deleted meanwhile).
   */
  private async record(
    deliveryId: bigint,
    url: string,
    result: WebhookCallResult,
    kind: AttemptKind,
  ): Promise<WebhookLogRow | null> {
    return this.deps.prisma.$transaction(async (db) => {
      const [locked] = await db.$queryRaw<{ attempts: number; webhook_id: number }[]>`
        SELECT attempts, webhook_id FROM webhook_deliveries WHERE id = ${deliveryId} FOR UPDATE`;
      if (!locked) return null;
      const attempt = locked.attempts + 1;
      const log = await db.webhookLog.create({
        data: {
          deliveryId,
          webhookId: locked.webhook_id,
          attempt,
          url,
          successful: result.successful,
          responseCode: result.responseCode,
          responseBody: result.responseBody,
          errorMessage: result.errorMessage,
          durationMs: result.durationMs,
        },
      });
      let status: 'succeeded' | 'failed' | undefined;
      if (result.successful) status = 'succeeded';
      else if (kind === 'verification') status = 'failed';
      else if (kind === 'scheduled' && attempt >= WEBHOOK_MAX_ATTEMPTS) status = 'failed';
      await db.webhookDelivery.update({ where: { id: deliveryId }, data: { attempts: attempt, status } });

      if (kind === 'verification' && result.successful) {
        await db.webhook.update({
          where: { id: locked.webhook_id },
          data: { disabled: false, disabledAt: null },
        });
      } else if (kind === 'scheduled' && status === 'failed') {
        await db.webhook.updateMany({
          where: { id: locked.webhook_id, disabled: false },
          data: { disabled: true, disabledAt: new Date() },
        });
      } else if (kind === 'scheduled' && status === undefined) {
        const delay = retryDelayMs(attempt, this.deps.config.retryBaseMs, result.retryAfterSeconds);
        await enqueueJob(
          db,
          DELIVER_TASK,
          { deliveryId: String(deliveryId) },
          {
            jobKey: deliveryJobKey(deliveryId),
            runAt: new Date(Date.now() + delay),
            maxAttempts: DELIVER_JOB_MAX_ATTEMPTS,
          },
        );
      }
      return log;
    });
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
