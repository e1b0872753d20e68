import { STATUS_FAILED_BODY } from '../../operations/error-shapes';
import {
  WEBHOOK_DISABLED,
  WEBHOOK_LIMIT_REACHED,
  WEBHOOK_LOG_NOT_FOUND,
  WEBHOOK_NOT_FOUND,
  WEBHOOK_NOT_STORED,
  WEBHOOK_REJECTED,
  WEBHOOK_VERIFICATION_FAILED,
} from './webhooks.service';
import type { RestRoute } from '../../operations/routes';
import { WebhooksResolver } from './webhooks.resolver';

/**
 * The webhook paths: every failure in Shape A `{status:'failed', error, ...}` (the interface's
 * messages for creation: only HTTPS urls allowed, invalid url, webhook events not found, database
 * operation failed; and Laurel's own: webhook limit reached). /webhook/secret comes before
 * /webhook/:id. A created webhook answers 201 (as the original service does); PUT /webhook/:id is
 * PATCH's operation (the original's update path).
 */
const UPDATE_WEBHOOK: RestRoute<WebhooksResolver> = {
  method: 'patch',
  path: '/webhook/:id',
  operation: WebhooksResolver.prototype.updateWebhook,
  errors: STATUS_FAILED_BODY,
  failures: [WEBHOOK_NOT_FOUND, WEBHOOK_REJECTED],
  envelope: 'status',
  resultField: 'webhook',
};

export const webhooksRoutes: RestRoute<WebhooksResolver>[] = [
  {
    method: 'get',
    path: '/webhook/secret',
    operation: WebhooksResolver.prototype.webhookSecret,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
  },
  {
    method: 'post',
    path: '/webhook/secret',
    operation: WebhooksResolver.prototype.rotateWebhookSecret,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
  },
  {
    method: 'post',
    path: '/webhook',
    operation: WebhooksResolver.prototype.createWebhook,
    errors: STATUS_FAILED_BODY,
    failures: [WEBHOOK_REJECTED, WEBHOOK_LIMIT_REACHED, WEBHOOK_NOT_STORED],
    envelope: 'status',
    resultField: 'webhook',
    status: 201,
  },
  {
    method: 'get',
    path: '/webhooks',
    operation: WebhooksResolver.prototype.webhooks,
    errors: STATUS_FAILED_BODY,
    failures: [],
    envelope: 'status',
    resultField: 'webhooks',
  },
  {
    method: 'get',
    path: '/webhook/:id',
    operation: WebhooksResolver.prototype.webhook,
    errors: STATUS_FAILED_BODY,
    failures: [WEBHOOK_NOT_FOUND],
    envelope: 'status',
    resultField: 'webhook',
  },
  UPDATE_WEBHOOK,
  {
    ...UPDATE_WEBHOOK,
    method: 'put',
    operationId: 'replaceWebhook',
    description:
      'The original service’s “Update an existing webhook”: the same operation as PATCH (fields left out keep their value).',
  },
  {
    method: 'delete',
    path: '/webhook/:id',
    operation: WebhooksResolver.prototype.deleteWebhook,
    errors: STATUS_FAILED_BODY,
    failures: [WEBHOOK_NOT_FOUND],
    envelope: 'status',
    resultField: 'webhook',
  },
  {
    method: 'post',
    path: '/webhook/:id/test',
    operation: WebhooksResolver.prototype.testWebhook,
    errors: STATUS_FAILED_BODY,
    failures: [WEBHOOK_NOT_FOUND, WEBHOOK_VERIFICATION_FAILED],
    envelope: 'status',
    resultField: 'webhook',
  },
  {
    method: 'get',
    path: '/webhook/:id/logs',
    operation: WebhooksResolver.prototype.webhookLogs,
    errors: STATUS_FAILED_BODY,
    failures: [WEBHOOK_NOT_FOUND],
    envelope: 'status',
  },
  {
    method: 'post',
    path: '/webhook/:id/logs/:log_id/retry',
    operation: WebhooksResolver.prototype.retryWebhookLog,
    errors: STATUS_FAILED_BODY,
    failures: [WEBHOOK_NOT_FOUND, WEBHOOK_LOG_NOT_FOUND, WEBHOOK_DISABLED],
    envelope: 'status',
    resultField: 'log',
  },
];
