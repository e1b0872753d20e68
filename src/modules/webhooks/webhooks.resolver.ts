import { Resolver } from 'type-graphql';
import { Operation } from '../../operations/operation';
import type { AuthenticatedContext } from '../../operations/request-context';
import {
  createWebhookSchema,
  noInputSchema,
  retryWebhookLogSchema,
  rotateWebhookSecretSchema,
  updateWebhookSchema,
  webhookByIdSchema,
  webhookLogsSchema,
  type CreateWebhookInput,
  type RetryWebhookLogInput,
  type RotateWebhookSecretInput,
  type UpdateWebhookInput,
  type WebhookByIdInput,
  type WebhookLogsInput,
} from './webhooks.schema';
import type { WebhooksService } from './webhooks.service';
import { WebhookInfo, WebhookLogEntry, WebhookLogPage, WebhookSecretPayload } from './webhooks.types';

/** One method per operation; the REST routes (webhooks.routes.ts) call these same methods. */
@Resolver()
export class WebhooksResolver {
  constructor(private readonly service: WebhooksService) {}

  @Operation({
    kind: 'mutation',
    input: createWebhookSchema,
    output: WebhookInfo,
    description: 'Registers a webhook, disabled until verified with testWebhook (POST /webhook)',
  })
  async createWebhook(args: CreateWebhookInput, ctx: AuthenticatedContext): Promise<WebhookInfo> {
    return this.service.create(args, ctx.account.address);
  }

  @Operation({
    kind: 'mutation',
    input: webhookByIdSchema,
    output: WebhookInfo,
    description:
      'Sends the `test` call; a receiver answering the challenge activates (or re-activates) the webhook (POST /webhook/:id/test)',
  })
  async testWebhook(args: WebhookByIdInput, ctx: AuthenticatedContext): Promise<WebhookInfo> {
    return this.service.test(Number(args.id), ctx.account.address);
  }

  @Operation({
    kind: 'query',
    input: noInputSchema,
    output: WebhookSecretPayload,
    description: 'The account’s webhook signing secret (GET /webhook/secret)',
  })
  async webhookSecret(_args: object, ctx: AuthenticatedContext): Promise<WebhookSecretPayload> {
    return this.service.secret(ctx.account.address);
  }

  @Operation({
    kind: 'mutation',
    input: rotateWebhookSecretSchema,
    output: WebhookSecretPayload,
    description:
      'Replaces the account’s webhook secret with a new one, keeping the old one valid for `overlap_seconds` (POST /webhook/secret)',
  })
  async rotateWebhookSecret(
    args: RotateWebhookSecretInput,
    ctx: AuthenticatedContext,
  ): Promise<WebhookSecretPayload> {
    return this.service.rotateSecret(args, ctx.account.address);
  }

  @Operation({
    kind: 'query',
    input: webhookLogsSchema,
    output: WebhookLogPage,
    description: 'A webhook’s call attempts, newest first (GET /webhook/:id/logs)',
  })
  async webhookLogs(args: WebhookLogsInput, ctx: AuthenticatedContext): Promise<WebhookLogPage> {
    return this.service.logs(args, ctx.account.address);
  }

  @Operation({
    kind: 'query',
    input: noInputSchema,
    output: [WebhookInfo],
    description: 'The account’s webhooks (GET /webhooks)',
  })
  async webhooks(_args: object, ctx: AuthenticatedContext): Promise<WebhookInfo[]> {
    return this.service.list(ctx.account.address);
  }

  @Operation({
    kind: 'query',
    input: webhookByIdSchema,
    output: WebhookInfo,
    description: 'One of the account’s webhooks (GET /webhook/:id)',
  })
  async webhook(args: WebhookByIdInput, ctx: AuthenticatedContext): Promise<WebhookInfo> {
    return this.service.get(Number(args.id), ctx.account.address);
  }

  @Operation({
    kind: 'mutation',
    input: updateWebhookSchema,
    output: WebhookInfo,
    description:
      'Changes a webhook’s url or events; a new url is disabled until verified again (PATCH /webhook/:id)',
  })
  async updateWebhook(args: UpdateWebhookInput, ctx: AuthenticatedContext): Promise<WebhookInfo> {
    return this.service.update(args, ctx.account.address);
  }

  @Operation({
    kind: 'mutation',
    input: webhookByIdSchema,
    output: WebhookInfo,
    description: 'Deletes a webhook and its logs; its pending deliveries are cancelled (DELETE /webhook/:id)',
  })
  async deleteWebhook(args: WebhookByIdInput, ctx: AuthenticatedContext): Promise<WebhookInfo> {
    return this.service.delete(Number(args.id), ctx.account.address);
  }

  @Operation({
    kind: 'mutation',
    input: retryWebhookLogSchema,
    output: WebhookLogEntry,
    description:
      'Sends a logged event again now, same idempotency key, as a new logged attempt (POST /webhook/:id/logs/:log_id/retry)',
  })
  async retryWebhookLog(args: RetryWebhookLogInput, ctx: AuthenticatedContext): Promise<WebhookLogEntry> {
    return this.service.retry(Number(args.id), BigInt(args.log_id), ctx.account.address);
  }
}
