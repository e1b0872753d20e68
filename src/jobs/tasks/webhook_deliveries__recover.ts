import type { PoolClient } from 'pg';
import { defineTask, jobs } from '../jobs';

/**
 * Unlocks the jobs of workers that hold a delivery job longer than the lease: a call lasts at most
 * 5 s, so such a worker was killed mid-delivery (graphile-worker itself only frees locks after 4
 * hours). Its jobs run again elsewhere, with the same idempotency key. Returns the workers freed.
 */
export async function unlockAbandonedDeliveries(client: PoolClient, leaseSeconds: number): Promise<number> {
  const { rows } = await client.query<{ workers: string[] }>(
    `SELECT coalesce(array_agg(DISTINCT locked_by), '{}') AS workers FROM graphile_worker.jobs
     WHERE task_identifier = $1 AND locked_at < now() - make_interval(secs => $2)`,
    [jobs.deliverWebhook.name, leaseSeconds],
  );
  const workers = rows[0]?.workers ?? [];
  if (workers.length) await client.query('SELECT graphile_worker.force_unlock_workers($1)', [workers]);
  return workers.length;
}

/**
 * Enqueues the job of each delivery whose first attempt was left to the process that recorded its
 * event (FirstAttempts) and not recorded within its lease: that process stopped or died first.
 * Returns how many (SQL function laurel_enqueue_lapsed_first_attempts, `prisma/functions/laurel_enqueue_lapsed_first_attempts.sql`).
 */
export async function enqueueLapsedFirstAttempts(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ enqueued: number }>(
    'SELECT laurel_enqueue_lapsed_first_attempts() AS enqueued',
  );
  return rows[0]?.enqueued ?? 0;
}

/**
 * webhook_deliveries__recover: unlockAbandonedDeliveries and enqueueLapsedFirstAttempts, from the
 * crontab every minute and at each worker start.
 */
export const recoverDeliveriesTask = defineTask(
  jobs.recoverDeliveries,
  ({ deliveryLeaseSeconds }: { deliveryLeaseSeconds: number }) =>
    async (_payload, helpers) => {
      const [freed, enqueued] = await helpers.withPgClient(async (client) => [
        await unlockAbandonedDeliveries(client, deliveryLeaseSeconds),
        await enqueueLapsedFirstAttempts(client),
      ]);
      if (freed)
        helpers.logger.warn(`unlocked the jobs of ${freed} worker(s) that died during a webhook call`);
      if (enqueued)
        helpers.logger.warn(
          `enqueued the jobs of ${enqueued} webhook deliveries whose first attempt was not recorded within the lease (its process stopped?)`,
        );
    },
);
