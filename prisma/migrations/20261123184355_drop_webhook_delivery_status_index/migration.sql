-- Nothing looks deliveries up by status (a webhook's pending ones are found through its
-- (webhook_id, event_id) index), and without an index on it the UPDATE that records each attempt
-- can stay a heap-only (HOT) update.
-- DropIndex
DROP INDEX "webhook_deliveries_status_idx";
