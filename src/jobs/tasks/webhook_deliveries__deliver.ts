import { defineTask, jobs } from '../jobs';

/** What the task needs: the webhooks module's deliverer. */
export interface DeliveryAttempts {
  attempt(deliveryId: bigint): Promise<void>;
}

/**
 * webhook_deliveries__deliver {deliveryId}: one attempt of one delivery. A failed call is not a
 * failed job: the attempt is logged and the next one scheduled as a new job at the webhook retry
 * schedule. The job fails only when the database does, and is retried.
 */
export const deliverWebhookTask = defineTask(
  jobs.deliverWebhook,
  ({ deliveries }: { deliveries: DeliveryAttempts }) =>
    async ({ deliveryId }) =>
      deliveries.attempt(BigInt(deliveryId)),
);
