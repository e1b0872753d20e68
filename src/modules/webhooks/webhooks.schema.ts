import { ID } from 'type-graphql';
import { z } from 'zod';
import { WEBHOOK_SECRET_OVERLAP_CEILING_SECONDS } from '../../config/webhooks';
import { withGraphQLType } from '../../operations/graphql-args';
import { digitsSchema, pagingFields } from '../../validation';
import { SUBSCRIBABLE_EVENTS } from './webhook-events';

/** A webhook's id as REST paths and GraphQL give it (digits), as a number. */
const webhookIdSchema = withGraphQLType(
  digitsSchema('a webhook id', '1').describe('The webhook’s id (from POST /webhook or GET /webhooks)'),
  ID,
);

/**
 * The url is checked by the service (checkedUrl), so its failures carry the interface's own
 * messages (`invalid url`, `only HTTPS urls allowed`); the API reference states the same rule.
 */
const urlSchema = z
  .string()
  .max(2048)
  .describe('The receiver’s HTTPS url (an absolute URL with a host)')
  .openapi({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]://[^\\s/?#]',
    example: 'https://example.com/hooks/laurel',
  });
const eventsSchema = z
  // Any other name is refused by the service in the interface's words (`webhook events not found`).
  .array(
    z
      .string()
      .max(64)
      .openapi({ enum: [...SUBSCRIBABLE_EVENTS] }),
  )
  .max(16)
  .describe('Event names to receive (only `transaction`); omitted or empty: every event');

/** POST /webhook, mutation createWebhook. */
export const createWebhookSchema = z.object({ url: urlSchema, events: eventsSchema.optional() });
export type CreateWebhookInput = z.output<typeof createWebhookSchema>;

/** GET /webhook/:id, POST /webhook/:id/test, DELETE /webhook/:id and their GraphQL operations. */
export const webhookByIdSchema = z.object({ id: webhookIdSchema });
export type WebhookByIdInput = z.output<typeof webhookByIdSchema>;

/** PATCH /webhook/:id, mutation updateWebhook. */
export const updateWebhookSchema = z.object({
  id: webhookIdSchema,
  url: urlSchema.optional(),
  events: eventsSchema.optional(),
});
export type UpdateWebhookInput = z.output<typeof updateWebhookSchema>;

/** GET /webhooks, GET /webhook/secret: no input. */
export const noInputSchema = z.object({});

/** POST /webhook/secret (an optional body: without one the interface's rotation), mutation rotateWebhookSecret. */
export const rotateWebhookSecretSchema = z.object({
  overlap_seconds: z
    .number()
    .int()
    .min(0)
    .max(
      WEBHOOK_SECRET_OVERLAP_CEILING_SECONDS,
      `must be at most ${WEBHOOK_SECRET_OVERLAP_CEILING_SECONDS} seconds (WEBHOOK_SECRET_OVERLAP_MAX_SECONDS)`,
    )
    .optional()
    .describe(
      'Seconds the replaced secret stays valid: until then every call is signed with both (`webhook-signature` lists both; the body-HMAC header carries the new one). 0 replaces it at once; at most `WEBHOOK_SECRET_OVERLAP_MAX_SECONDS` (default 86400); omitted: `WEBHOOK_SECRET_OVERLAP_SECONDS` (default 0)',
    )
    .openapi({ example: 3600 }),
});
export type RotateWebhookSecretInput = z.output<typeof rotateWebhookSecretSchema>;

/** The page size of the logs when none is asked for. */
export const DEFAULT_LOGS_PAGE_SIZE = 20;

/** GET /webhook/:id/logs?page&page_size, query webhookLogs. */
export const webhookLogsSchema = z.object({
  id: webhookIdSchema,
  ...pagingFields(DEFAULT_LOGS_PAGE_SIZE),
});
export type WebhookLogsInput = z.output<typeof webhookLogsSchema>;

/** POST /webhook/:id/logs/:log_id/retry, mutation retryWebhookLog. */
export const retryWebhookLogSchema = z.object({
  id: webhookIdSchema,
  log_id: withGraphQLType(
    digitsSchema('a log entry id', '1').describe('The log entry’s id (from the logs)'),
    ID,
  ),
});
export type RetryWebhookLogInput = z.output<typeof retryWebhookLogSchema>;
