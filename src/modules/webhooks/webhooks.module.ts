import { defineModule } from '../module';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliverer } from './webhook-deliverer';
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
    const deliverer = new WebhookDeliverer({
      webhooks: repository,
      deliveries: new WebhookDeliveriesRepository(pool),
      secrets,
      client: webhooks.client,
      config: config.webhooks,
      metrics,
      log: log.child({ component: 'webhooks' }),
    });
    return new WebhooksService({ repository, secrets, deliverer });
  },
  resolver: WebhooksResolver,
  routes: webhooksRoutes,
});
