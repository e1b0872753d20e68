import { defineTask, jobs } from '../jobs';

/**
 * Housekeeping of the accounts module, run from the crontab every 10 minutes:
 * - rate_limits: deletes budgets whose window ended more than an hour ago (an expired row counts
 *   for nothing: the next request starts a new window);
 * - api_key_challenges: deletes challenges expired or consumed more than a day ago.
 */
export const pruneTask = defineTask(jobs.prune, () => async (_payload, helpers) => {
  await helpers.withPgClient(async (client) => {
    const counters = await client.query(`
      DELETE FROM rate_limits
      WHERE expire < (extract(epoch FROM now() - interval '1 hour') * 1000)::bigint`);
    const challenges = await client.query(`
      DELETE FROM api_key_challenges
      WHERE expires_at < now() - interval '1 day' OR consumed_at < now() - interval '1 day'`);
    helpers.logger.info(
      `pruned ${counters.rowCount ?? 0} rate limit budgets, ${challenges.rowCount ?? 0} API key challenges`,
    );
  });
});
