import { defineTask, jobs } from '../jobs';

/** What the task needs: the badges module's metadata refresher. */
export interface BadgeMetadataAttempts {
  attempt(uri: string, attempt: number): Promise<void>;
}

/**
 * badge_metadata__fetch {uri, attempt}: one attempt at a badge URI's metadata. A failed fetch is
 * not a failed job: its reason is stored and the retry or refresh scheduled as a new job. The job
 * fails only when the database does, and is retried.
 */
export const fetchBadgeMetadataTask = defineTask(
  jobs.fetchBadgeMetadata,
  ({ badgeMetadata }: { badgeMetadata: BadgeMetadataAttempts }) =>
    async ({ uri, attempt }) =>
      badgeMetadata.attempt(uri, attempt),
);
