import { defineModule } from '../module';
import { WebhooksResolver } from './webhooks.resolver';
import { webhooksRoutes } from './webhooks.routes';
import { WebhooksService } from './webhooks.service';

/** Webhooks: registration, verification, the signing secret, logs and management. */
export const webhooksModule = defineModule({
  name: 'webhooks',
  service: ({ prisma, webhooks }) => new WebhooksService({ prisma, ...webhooks }),
  resolver: WebhooksResolver,
  routes: webhooksRoutes,
});
