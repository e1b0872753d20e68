import { defineTask, jobs } from '../jobs';

/**
 * Housekeeping of the accounts module, run from the crontab every 10 minutes:
 * - rate_limit_counters: deletes windows older than an hour, except each key's newest window (the
 *   only one that can still be counting, whatever RATE_LIMIT_WINDOW_SECONDS is);
 * - api_key_challenges: deletes challenges expired or consumed more than a day ago.
 */
export const pruneTask = defineTask(jobs.prune, () => async (_payload, helpers) => {
  await helpers.withPgClient(async (client) => {
    const counters = await client.query(`
      DELETE FROM rate_limit_counters old
      WHERE old.window_start < now() - interval '1 hour'
        AND EXISTS (
          SELECT 1 FROM rate_limit_counters newer
          WHERE newer.api_key_id = old.api_key_id AND newer.window_start > old.window_start
        )`);
    const challenges = await client.query(`
      DELETE FROM api_key_challenges
      WHERE expires_at < now() - interval '1 day' OR consumed_at < now() - interval '1 day'`);
    helpers.logger.info(
      `pruned ${counters.rowCount ?? 0} rate limit windows, ${challenges.rowCount ?? 0} API key challenges`,
    );
  });
});
