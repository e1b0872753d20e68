import { Prisma, type PrismaClient, type SqlClient } from '../../db/prisma';
import { newIdempotencyKey, TEST_EVENT, type SubscribableEvent } from './webhook-events';

export type WebhookRow = Prisma.WebhookGetPayload<object>;

/** An account's secret as stored (encrypted), with the expiry of a replaced one still valid. */
export interface StoredWebhookSecret {
  secretEncrypted: string;
  previousExpiresAt: Date | null;
}
export type WebhookLogRow = Prisma.WebhookLogGetPayload<{
  include: { delivery: { include: { event: true } } };
}>;

/** An event of an account, to record (see emitWebhookEvent). */
export interface WebhookEventInput {
  accountAddress: string;
  event: SubscribableEvent;
  payload: Prisma.InputJsonValue | null;
  /** The request that caused the event (on its deliveries' log lines). */
  requestId?: string | null;
}

/**
 * The call that records an event of an account and, for each of its active webhooks subscribed
 * to it, a delivery (SQL function laurel_emit_webhook_event, migrations 20261125160000 and
 * 20261126213756), to put in the statement that records the event's cause: nothing is lost, and
 * nothing is sent for a change that rolls back. With `firstAttemptSeconds`, the caller makes the
 * first attempts itself after the commit (FirstAttempts) and holds them that long; without, each
 * delivery's job is enqueued in the statement. The account and request id may be SQL (columns of
 * that statement). An account without such a webhook records nothing. Its value: the deliveries'
 * ids (bigint[]).
 */
export function webhookEventEmission(input: {
  accountAddress: string | Prisma.Sql;
  event: SubscribableEvent;
  payload: Prisma.InputJsonValue | null;
  requestId: string | null | Prisma.Sql;
  firstAttemptSeconds: number | null;
}): Prisma.Sql {
  const payload = input.payload === null ? null : JSON.stringify(input.payload);
  return Prisma.sql`laurel_emit_webhook_event(${input.accountAddress}::varchar, ${input.event}::varchar,
    ${newIdempotencyKey()}::varchar, ${payload}::jsonb, ${input.requestId}::varchar,
    ${input.firstAttemptSeconds}::float8)`;
}

/**
 * Records an event (webhookEventEmission) in one statement on the caller's client, each delivery's
 * job enqueued; returns the number of deliveries.
 */
export async function emitWebhookEvent(db: SqlClient, input: WebhookEventInput): Promise<number> {
  const rows = await db.$queryRaw<{ deliveries: number }[]>`
    SELECT cardinality(${webhookEventEmission({
      ...input,
      requestId: input.requestId ?? null,
      firstAttemptSeconds: null,
    })}) AS deliveries`;
  return Number(rows[0]?.deliveries ?? 0);
}

/** Every statement on the webhook tables but the delivery attempts' (webhook-deliveries.repository.ts). */
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * Creates the webhook unless the account has `max` already (null then). The account's row is
   * locked meanwhile (not its key: writes that reference it go on), so concurrent creations of
   * one account are counted one after the other.
   */
  create(accountAddress: string, url: string, events: string[], max: number): Promise<WebhookRow | null> {
    return this.prisma.$transaction(async (db) => {
      await db.$queryRaw`SELECT 1 FROM accounts WHERE address = ${accountAddress} FOR NO KEY UPDATE`;
      if ((await db.webhook.count({ where: { accountAddress } })) >= max) return null;
      return db.webhook.create({ data: { accountAddress, url, events } });
    });
  }

  list(accountAddress: string): Promise<WebhookRow[]> {
    return this.prisma.webhook.findMany({ where: { accountAddress }, orderBy: { id: 'asc' } });
  }

  /** The webhook when it is the account's. */
  findOwned(id: number, accountAddress: string): Promise<WebhookRow | null> {
    return this.prisma.webhook.findFirst({ where: { id, accountAddress } });
  }

  findById(id: number): Promise<WebhookRow | null> {
    return this.prisma.webhook.findUnique({ where: { id } });
  }

  update(id: number, data: { url: string; events: string[]; disable: boolean }): Promise<WebhookRow> {
    return this.prisma.webhook.update({
      where: { id },
      data: {
        url: data.url,
        events: data.events,
        ...(data.disable ? { disabled: true, disabledAt: new Date() } : {}),
      },
    });
  }

  /** Deletes the webhook with its deliveries and logs; the jobs of its pending deliveries go too. */
  async delete(id: number): Promise<void> {
    await this.prisma.$transaction(async (db) => {
      await db.$executeRaw`
        SELECT laurel_remove_delivery_job(id) FROM webhook_deliveries
        WHERE webhook_id = ${id} AND status = 'pending'`;
      await db.webhook.delete({ where: { id } });
    });
  }

  /** A page of the webhook's logs, newest first, each with its event. */
  async logsPage(
    webhookId: number,
    offset: number,
    pageSize: number,
  ): Promise<{ total: number; rows: WebhookLogRow[] }> {
    const where = { webhookId };
    const [total, rows] = await Promise.all([
      this.prisma.webhookLog.count({ where }),
      this.prisma.webhookLog.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: offset,
        take: pageSize,
        include: { delivery: { include: { event: true } } },
      }),
    ]);
    return { total, rows };
  }

  findLog(logId: bigint, webhookId: number): Promise<WebhookLogRow | null> {
    return this.prisma.webhookLog.findFirst({
      where: { id: logId, webhookId },
      include: { delivery: { include: { event: true } } },
    });
  }

  /**
   * Deletes up to `limit` of the oldest events recorded more than `days` ago, with their
   * deliveries and logged attempts, unless one of their deliveries is still pending; returns how
   * many. The oldest are read by id (the order they were recorded in) and deleted by id, so a run
   * reads about `limit` rows whatever the table holds.
   */
  pruneEvents(days: number, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM webhook_events e
      WHERE e.id = ANY(ARRAY(
          SELECT id FROM (SELECT id, created_at FROM webhook_events ORDER BY id LIMIT ${limit}) oldest
          WHERE created_at < now() - make_interval(days => ${days}::int)))
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending'
        )`;
  }

  /** A `test` event for the webhook and its one delivery (no job: the call is made at once). */
  async createTestDelivery(webhook: WebhookRow): Promise<{ deliveryId: bigint; idempotencyKey: string }> {
    return this.prisma.$transaction(async (db) => {
      const event = await db.webhookEvent.create({
        data: {
          accountAddress: webhook.accountAddress,
          event: TEST_EVENT,
          idempotencyKey: newIdempotencyKey(),
        },
      });
      const delivery = await db.webhookDelivery.create({
        data: { webhookId: webhook.id, eventId: event.id },
      });
      return { deliveryId: delivery.id, idempotencyKey: event.idempotencyKey };
    });
  }

  /** A pending delivery to a webhook deactivated (or changed) since its event: nothing more is sent. */
  async cancelDelivery(deliveryId: bigint): Promise<void> {
    await this.prisma.webhookDelivery.updateMany({
      where: { id: deliveryId, status: 'pending' },
      data: { status: 'cancelled' },
    });
  }

  /** The account's stored secret; `previousExpiresAt` only while a replaced one is still valid. */
  async storedSecret(accountAddress: string): Promise<StoredWebhookSecret | null> {
    const rows = await this.prisma.$queryRaw<StoredWebhookSecret[]>`
      SELECT secret_encrypted AS "secretEncrypted",
             CASE WHEN previous_expires_at > now() THEN previous_expires_at END AS "previousExpiresAt"
      FROM webhook_secrets WHERE account_address = ${accountAddress}`;
    return rows[0] ?? null;
  }

  /** Stores the secret unless the account has one already (two first calls at once: one wins). */
  async insertSecret(accountAddress: string, secretEncrypted: string): Promise<void> {
    await this.prisma.webhookSecret.createMany({
      data: [{ accountAddress, secretEncrypted }],
      skipDuplicates: true,
    });
  }

  /**
   * Replaces the account's secret. With `overlapSeconds` > 0 the replaced one becomes the previous
   * secret until then (any older previous one is dropped); with 0 there is none. Concurrent
   * rotations of one account lock its row in turn, so each keeps the one it replaced. Returns when
   * the previous secret expires (null: none).
   */
  async rotateSecret(
    accountAddress: string,
    secretEncrypted: string,
    overlapSeconds: number,
  ): Promise<Date | null> {
    const rows = await this.prisma.$queryRaw<{ previousExpiresAt: Date | null }[]>`
      INSERT INTO webhook_secrets (account_address, secret_encrypted)
      VALUES (${accountAddress}, ${secretEncrypted})
      ON CONFLICT (account_address) DO UPDATE SET
        secret_encrypted = EXCLUDED.secret_encrypted,
        created_at = now(),
        previous_secret_encrypted = CASE WHEN ${overlapSeconds}::int > 0 THEN webhook_secrets.secret_encrypted END,
        previous_expires_at = CASE WHEN ${overlapSeconds}::int > 0
          THEN now() + make_interval(secs => ${overlapSeconds}::int) END
      RETURNING previous_expires_at AS "previousExpiresAt"`;
    return rows[0]?.previousExpiresAt ?? null;
  }
}
