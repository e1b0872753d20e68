import { defineModule } from '../module';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliverer } from './webhook-deliverer';
import { FirstAttempts } from './webhook-first-attempts';
import { WebhookSecretBox, WebhookSecrets } from './webhook-secrets';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksResolver } from './webhooks.resolver';
import { webhooksRoutes } from './webhooks.routes';
import { WebhooksService } from './webhooks.service';

/** Webhooks: registration, verification, the signing secret, logs, management, and delivery. */
export const webhooksModule = defineModule({
  name: 'webhooks',
  service: ({ prisma, pool, config, webhooks, metrics, log }) => {
    const repository = new WebhooksRepository(prisma);
    const secrets = new WebhookSecrets(repository, new WebhookSecretBox(webhooks.secretEncryptionKey));
    const webhooksLog = log.child({ component: 'webhooks' });
    const deliverer = new WebhookDeliverer({
      webhooks: repository,
      deliveries: new WebhookDeliveriesRepository(pool),
      secrets,
      client: webhooks.client,
      config: config.webhooks,
      metrics,
      log: webhooksLog,
    });
    const firstAttempts = new FirstAttempts(deliverer, {
      limit: config.webhooks.firstAttempts,
      leaseSeconds: config.webhooks.deliveryLeaseSeconds,
      log: webhooksLog,
    });
    return new WebhooksService({
      repository,
      secrets,
      deliverer,
      firstAttempts,
      limits: {
        perAccount: config.webhooks.perAccount,
        retentionDays: config.webhooks.retentionDays,
        overlapSeconds: config.webhooks.secretOverlapSeconds,
        overlapMaxSeconds: config.webhooks.secretOverlapMaxSeconds,
      },
    });
  },
  resolver: WebhooksResolver,
  routes: webhooksRoutes,
  tasks: (webhooks) => ({ deliveries: webhooks.deliverer, housekeeping: [webhooks] }),
});
