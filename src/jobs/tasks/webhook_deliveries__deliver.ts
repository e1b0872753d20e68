import { defineTask, jobs } from '../jobs';

/**
 * webhook_deliveries__deliver {deliveryId}: one attempt of one delivery (see WebhookDeliverer).
 * A failed call is not a failed job: the attempt is logged and the next one scheduled as a new
 * job at the webhook retry schedule. The job fails only when the database does, and is retried.
 */
export const deliverWebhookTask = defineTask(
  jobs.deliverWebhook,
  ({ webhooks }) =>
    async ({ deliveryId }) => {
      await webhooks.deliverer.attempt(BigInt(deliveryId));
    },
);
