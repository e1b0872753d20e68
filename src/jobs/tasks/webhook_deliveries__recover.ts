import type { PoolClient } from 'pg';
import { defineTask, jobs } from '../jobs';

/**
 * Enqueues the job of each delivery whose first attempt was left to the process that recorded its
 * event (FirstAttempts) and not recorded within its lease: that process stopped or died first.
 * Returns how many (SQL function laurel_enqueue_lapsed_first_attempts, `prisma/functions/laurel_enqueue_lapsed_first_attempts.sql`),
 * and when the first lease still held ends (null: none is held).
 * Delivery jobs themselves, like every job, are freed from a lost worker by WorkerSessions
 * (src/jobs/worker-sessions.ts).
 */
export async function enqueueLapsedFirstAttempts(
  client: PoolClient,
): Promise<{ enqueued: number; nextLapse: Date | null }> {
  const { rows } = await client.query<{ enqueued: number }>(
    'SELECT laurel_enqueue_lapsed_first_attempts() AS enqueued',
  );
  const held = await client.query<{ next_lapse: Date | null }>(
    'SELECT min(first_attempt_until) AS next_lapse FROM webhook_deliveries WHERE first_attempt_until >= now()',
  );
  return { enqueued: rows[0]?.enqueued ?? 0, nextLapse: held.rows[0]?.next_lapse ?? null };
}

/**
 * webhook_deliveries__recover: enqueueLapsedFirstAttempts, from the crontab every minute, at each
 * worker start, and again a second after the first lease still held ends: the first attempts of a
 * process that died are made when their leases end, not at the crontab's next minute (the second
 * lets leases that end together go in one run). An earlier run already due stays as it is.
 */
export const recoverDeliveriesTask = defineTask(jobs.recoverDeliveries, () => async (_payload, helpers) => {
  const { enqueued, nextLapse } = await helpers.withPgClient(enqueueLapsedFirstAttempts);
  if (enqueued)
    helpers.logger.warn(
      `enqueued the jobs of ${enqueued} webhook deliveries whose first attempt was not recorded within the lease (its process stopped?)`,
    );
  if (nextLapse) {
    await helpers.addJob(
      jobs.recoverDeliveries.name,
      {},
      {
        jobKey: jobs.recoverDeliveries.name,
        runAt: new Date(nextLapse.getTime() + 1000),
        jobKeyMode: 'preserve_run_at',
      },
    );
  }
});
