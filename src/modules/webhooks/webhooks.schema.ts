import { ID } from 'type-graphql';
import { z } from 'zod';
import { withGraphQLType } from '../../operations/graphql-args';
import { digitsSchema } from '../../validation';

/** A webhook's id as REST paths and GraphQL give it (digits), as a number. */
const webhookIdSchema = withGraphQLType(
  digitsSchema('a webhook id', '1').describe('The webhook’s id (from POST /webhook or GET /webhooks)'),
  ID,
);

/** The url is checked by the service, so its failures carry the interface's own messages. */
const urlSchema = z.string().max(2048).describe('The receiver’s HTTPS url');
const eventsSchema = z
  .array(z.string().max(64))
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

/** GET /webhooks, GET and POST /webhook/secret: no input. */
export const noInputSchema = z.object({});

/** The largest page of logs. */
export const MAX_LOGS_PAGE_SIZE = 100;

/** GET /webhook/:id/logs?page&page_size, query webhookLogs. */
export const webhookLogsSchema = z.object({
  id: webhookIdSchema,
  page: digitsSchema('a page number from 1', '2').optional().describe('Page number, from 1 (default 1)'),
  page_size: digitsSchema(`a number of entries from 1 to ${MAX_LOGS_PAGE_SIZE}`, '20')
    .optional()
    .describe(`Entries per page, 1..${MAX_LOGS_PAGE_SIZE} (default 20)`),
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
