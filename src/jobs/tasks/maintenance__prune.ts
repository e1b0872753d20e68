import { defineTask, jobs } from '../jobs';

/** What the task needs: each module's housekeeping of its own old rows. */
export interface Housekeeping {
  /** Deletes what has expired; returns a count per kind of row, for the log. */
  pruneExpired(): Promise<Record<string, number>>;
}

/** maintenance__prune: every module's housekeeping, from the crontab every 10 minutes. */
export const pruneTask = defineTask(
  jobs.prune,
  ({ housekeeping }: { housekeeping: readonly Housekeeping[] }) =>
    async (_payload, helpers) => {
      const pruned: Record<string, number> = {};
      for (const module of housekeeping) Object.assign(pruned, await module.pruneExpired());
      const counts = Object.entries(pruned).map(([rows, count]) => `${count} ${rows}`);
      helpers.logger.info(`pruned ${counts.join(', ') || 'nothing'}`);
    },
);
