-- Webhook events are pruned after WEBHOOK_LOG_RETENTION_DAYS (maintenance__prune): deleting an
-- event deletes its deliveries (and their logs) by event_id, which no index led with until now.
CREATE INDEX "webhook_deliveries_event_id_idx" ON "webhook_deliveries"("event_id");
