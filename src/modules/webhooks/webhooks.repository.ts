import type { Prisma, PrismaClient, SqlClient } from '../../db/prisma';
import { newIdempotencyKey, TEST_EVENT, type SubscribableEvent } from './webhook-events';

export type WebhookRow = Prisma.WebhookGetPayload<object>;
export type WebhookLogRow = Prisma.WebhookLogGetPayload<{
  include: { delivery: { include: { event: true } } };
}>;

/**
 * Records an event of an account and, for each of its active webhooks subscribed to it, a
 * delivery and that delivery's job: one statement, run on the caller's client, so inside the
 * transaction that records the event's cause nothing is lost and nothing is sent for a change that
 * rolls back. An account without such a webhook records nothing. Returns the number of deliveries.
 */
export async function emitWebhookEvent(
  db: SqlClient,
  input: {
    accountAddress: string;
    event: SubscribableEvent;
    payload: Prisma.InputJsonValue | null;
    /** The request that caused the event (on its deliveries' log lines). */
    requestId?: string | null;
  },
): Promise<number> {
  const payload = input.payload === null ? null : JSON.stringify(input.payload);
  const rows = await db.$queryRaw<{ deliveries: bigint }[]>`
    WITH subscribed AS (
      SELECT id FROM webhooks
      WHERE account_address = ${input.accountAddress} AND NOT disabled
        AND (cardinality(events) = 0 OR ${input.event} = ANY(events))
    ), event AS (
      INSERT INTO webhook_events (account_address, event, idempotency_key, payload, request_id)
      SELECT ${input.accountAddress}, ${input.event}, ${newIdempotencyKey()}, ${payload}::jsonb,
             ${input.requestId ?? null}
      WHERE EXISTS (SELECT 1 FROM subscribed)
      RETURNING id
    ), delivery AS (
      INSERT INTO webhook_deliveries (webhook_id, event_id)
      SELECT subscribed.id, event.id FROM subscribed, event
      RETURNING id
    )
    SELECT count(laurel_add_delivery_job(delivery.id)) AS deliveries FROM delivery`;
  return Number(rows[0]?.deliveries ?? 0);
}

/** Every statement on the webhook tables but the delivery attempts' (webhook-deliveries.repository.ts). */
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaClient) {}

  create(accountAddress: string, url: string, events: string[]): Promise<WebhookRow> {
    return this.prisma.webhook.create({ data: { accountAddress, url, events } });
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
    page: number,
    pageSize: number,
  ): Promise<{ total: number; rows: WebhookLogRow[] }> {
    const where = { webhookId };
    const [total, rows] = await Promise.all([
      this.prisma.webhookLog.count({ where }),
      this.prisma.webhookLog.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: (page - 1) * pageSize,
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

  async storedSecret(accountAddress: string): Promise<string | null> {
    const row = await this.prisma.webhookSecret.findUnique({ where: { accountAddress } });
    return row?.secretEncrypted ?? null;
  }

  /** Stores the secret unless the account has one already (two first calls at once: one wins). */
  async insertSecret(accountAddress: string, secretEncrypted: string): Promise<void> {
    await this.prisma.webhookSecret.createMany({
      data: [{ accountAddress, secretEncrypted }],
      skipDuplicates: true,
    });
  }

  async replaceSecret(accountAddress: string, secretEncrypted: string): Promise<void> {
    await this.prisma.webhookSecret.upsert({
      where: { accountAddress },
      create: { accountAddress, secretEncrypted },
      update: { secretEncrypted, createdAt: new Date() },
    });
  }
}
