import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { WebhookDeliverer } from '../webhooks/webhook-deliverer';

const payloadSchema = z.object({ deliveryId: z.string().regex(/^\d+$/) });

/**
 * webhook_deliveries__deliver {deliveryId}: one attempt of one delivery (see WebhookDeliverer).
 * A failed call is not a failed job: the attempt is logged and the next one scheduled as a new
 * job at the webhook retry schedule. The job fails only when the database does, and is retried.
 */
export function createDeliverWebhookTask(deliverer: WebhookDeliverer): Task {
  return async (payload) => {
    const { deliveryId } = payloadSchema.parse(payload);
    await deliverer.attempt(BigInt(deliveryId));
  };
}
