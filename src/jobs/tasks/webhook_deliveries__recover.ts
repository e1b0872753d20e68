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

/** webhook_deliveries__recover: unlockAbandonedDeliveries, from the crontab every minute and at each worker start. */
export const recoverDeliveriesTask = defineTask(
  jobs.recoverDeliveries,
  ({ deliveryLeaseSeconds }: { deliveryLeaseSeconds: number }) =>
    async (_payload, helpers) => {
      const freed = await helpers.withPgClient((client) =>
        unlockAbandonedDeliveries(client, deliveryLeaseSeconds),
      );
      if (freed)
        helpers.logger.warn(`unlocked the jobs of ${freed} worker(s) that died during a webhook call`);
    },
);
