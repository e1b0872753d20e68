import { randomBytes } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../db/prisma';
import { jobs } from '../jobs';

type SqlClient = PrismaClient | Prisma.TransactionClient;

/** Events a webhook can subscribe to; an empty subscription means all of them. */
export const SUBSCRIBABLE_EVENTS = ['transaction'] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
/** Sent by POST /webhook/:id/test, to the one webhook being verified. */
export const TEST_EVENT = 'test';

/** One delivery job per delivery: its key lets a deleted webhook's pending jobs be removed. */
export function deliveryJobKey(deliveryId: bigint): string {
  return `${jobs.deliverWebhook.name}:${deliveryId}`;
}

/** A new idempotency key, stable for every attempt of the event's deliveries (`webhook-id`). */
export function newIdempotencyKey(): string {
  return `evt_${randomBytes(16).toString('hex')}`;
}

/**
 * Records an event of an account and, for each of its active webhooks subscribed to it, a
 * delivery and that delivery's job: one statement, run on the caller's client, so inside the
 * transaction that records the event's cause nothing is lost and nothing is sent for a change that
 * rolls back. An account without such a webhook records nothing. Returns the number of deliveries.
 */
export async function emitWebhookEvent(
  db: SqlClient,
  input: { accountAddress: string; event: SubscribableEvent; payload: Prisma.InputJsonValue | null },
): Promise<number> {
  const payload = input.payload === null ? null : JSON.stringify(input.payload);
  const rows = await db.$queryRaw<{ deliveries: bigint }[]>`
    WITH subscribed AS (
      SELECT id FROM webhooks
      WHERE account_address = ${input.accountAddress} AND NOT disabled
        AND (cardinality(events) = 0 OR ${input.event} = ANY(events))
    ), event AS (
      INSERT INTO webhook_events (account_address, event, idempotency_key, payload)
      SELECT ${input.accountAddress}, ${input.event}, ${newIdempotencyKey()}, ${payload}::jsonb
      WHERE EXISTS (SELECT 1 FROM subscribed)
      RETURNING id
    ), delivery AS (
      INSERT INTO webhook_deliveries (webhook_id, event_id)
      SELECT subscribed.id, event.id FROM subscribed, event
      RETURNING id
    )
    SELECT count(graphile_worker.add_job(
      identifier => ${jobs.deliverWebhook.name}::text,
      payload => json_build_object('deliveryId', delivery.id::text),
      job_key => ${jobs.deliverWebhook.name} || ':' || delivery.id, -- deliveryJobKey()
      max_attempts => ${jobs.deliverWebhook.maxAttempts}::int
    )) AS deliveries
    FROM delivery`;
  return Number(rows[0]?.deliveries ?? 0);
}
