-- The X-Request-Id of the request that broadcast a transaction, and of the one that caused an
-- event: the receipt job and the webhook deliveries that follow log it.
ALTER TABLE "transactions" ADD COLUMN "request_id" VARCHAR(128);
ALTER TABLE "webhook_events" ADD COLUMN "request_id" VARCHAR(128);
