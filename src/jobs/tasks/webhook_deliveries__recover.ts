import type { PoolClient } from 'pg';
import { defineTask, jobs } from '../jobs';

/**
 * Enqueues the job of each delivery whose first attempt was left to the process that recorded its
 * event (FirstAttempts) and not recorded within its lease: that process stopped or died first.
 * Returns how many (SQL function laurel_enqueue_lapsed_first_attempts, `prisma/functions/laurel_enqueue_lapsed_first_attempts.sql`).
 * Delivery jobs themselves, like every job, are freed from a lost worker by WorkerSessions
 * (src/jobs/worker-sessions.ts).
 */
export async function enqueueLapsedFirstAttempts(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ enqueued: number }>(
    'SELECT laurel_enqueue_lapsed_first_attempts() AS enqueued',
  );
  return rows[0]?.enqueued ?? 0;
}

/** webhook_deliveries__recover: enqueueLapsedFirstAttempts, from the crontab every minute and at each worker start. */
export const recoverDeliveriesTask = defineTask(jobs.recoverDeliveries, () => async (_payload, helpers) => {
  const enqueued = await helpers.withPgClient(enqueueLapsedFirstAttempts);
  if (enqueued)
    helpers.logger.warn(
      `enqueued the jobs of ${enqueued} webhook deliveries whose first attempt was not recorded within the lease (its process stopped?)`,
    );
});
