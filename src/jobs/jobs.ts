import type { JobHelpers, Task } from 'graphile-worker';
import { z } from 'zod';
import { traced } from '../tracing';

/**
 * Thrown by a task whose work is not possible yet (a transaction not mined yet): graphile-worker
 * retries it with backoff as for any failure, but it is logged at debug level, without a stack.
 */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
}

/**
 * When graphile-worker runs the next attempt of a job whose `attempts`-th attempt fails now:
 * exp(min(attempts, 10)) seconds later (its documented backoff, failJobs).
 */
export function nextRetryAt(attempts: number, now = Date.now()): Date {
  return new Date(now + Math.exp(Math.min(attempts, 10)) * 1000);
}

/** A job Laurel enqueues: its graphile-worker task name and payload, stated once. */
export interface JobDefinition<P> {
  /** `<table>__<action>` (graphile/starter's convention). */
  readonly name: string;
  /** Parses the payload when the job runs: a job enqueued by an older version fails loudly. */
  readonly payload: z.ZodType<P, z.ZodTypeDef, unknown>;
  /** graphile-worker's attempts (with its exponential backoff) unless the enqueuer says otherwise. */
  readonly maxAttempts?: number;
}

function defineJob<P>(
  name: string,
  payload: z.ZodType<P, z.ZodTypeDef, unknown>,
  options: { maxAttempts?: number } = {},
): JobDefinition<P> {
  return { name, payload, ...options };
}

/** Every job, by what it does: enqueueJob and each task (src/jobs/tasks) take their definition from here. */
export const jobs = {
  /** Waits for a broadcast transaction's receipt and records it. */
  trackReceipt: defineJob(
    'transactions__track_receipt',
    z.object({
      chainId: z.number().int().positive(),
      hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
      /** The X-Request-Id of the request that broadcast it (absent for transactions it did not). */
      requestId: z.string().max(128).optional(),
    }),
    // graphile-worker retries a transaction not mined yet with exponential backoff, this many times.
    { maxAttempts: 20 },
  ),
  /**
   * Gives the transactions still pending past the end of their execute-and-wait to receipt jobs,
   * from the crontab every minute; with `all`, every pending transaction, its receipt job due now
   * (at each worker start, and when the worker's database is back after an outage).
   */
  trackPending: defineJob(
    'transactions__track_pending',
    z.object({ all: z.boolean().optional() }).passthrough(),
  ),
  /**
   * Checks a chain's recorded receipts that a reorganisation could still take away against the
   * chain; enqueued with each recorded receipt, and again while some are not final.
   */
  checkReceipts: defineJob(
    'transactions__check_receipts',
    z.object({ chainId: z.number().int().positive() }),
  ),
  /** Housekeeping of old rows, from the crontab. */
  prune: defineJob('maintenance__prune', z.object({}).passthrough()),
  /**
   * One attempt of one webhook delivery. Enqueued by SQL only (laurel_add_delivery_job, migration
   * 20261125090000: its key and job attempts are stated there), in the statements that record
   * events and attempts.
   */
  deliverWebhook: defineJob(
    'webhook_deliveries__deliver',
    z.object({ deliveryId: z.string().regex(/^\d+$/) }),
  ),
  /**
   * One attempt at fetching the metadata document of a badge URI (a first fetch, a retry or a
   * refresh). Enqueued by SQL only (laurel_add_badge_metadata_job, migration
   * 20261125140000_badge_metadata: its key and job attempts are stated there): by the indexer when
   * it sees a badge, and by the attempt before.
   */
  fetchBadgeMetadata: defineJob(
    'badge_metadata__fetch',
    z.object({ uri: z.string().min(1), attempt: z.number().int().positive() }),
  ),
  /** Enqueues the first attempts of webhook deliveries that their process did not make. */
  recoverDeliveries: defineJob('webhook_deliveries__recover', z.object({}).passthrough()),
} as const;

/** A task: the name of the job it runs, and its graphile-worker handler built from what it needs. */
export interface LaurelTask<D> {
  name: string;
  create: (deps: D) => Task;
}

/** A task for `job`: its handler gets the payload parsed with the job's schema, typed as the job's. */
export function defineTask<P, D>(
  job: JobDefinition<P>,
  create: (deps: D) => (payload: P, helpers: JobHelpers) => Promise<void>,
): LaurelTask<D> {
  return {
    name: job.name,
    create: (deps) => {
      const run = create(deps);
      return (payload, helpers) =>
        traced(`job ${job.name}`, { 'laurel.job_id': helpers.job.id }, () =>
          run(job.payload.parse(payload), helpers),
        );
    },
  };
}
