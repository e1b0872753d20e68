-- A webhook event and one delivery per subscribed webhook of the account, each delivery's job
-- enqueued: the statement emitWebhookEvent sent, now a function, so that the statement recording a
-- transaction's receipt also emits its `transaction` event (issue 26: execute-and-wait recorded a
-- receipt in six round trips, now one). Returns the number of deliveries.
CREATE FUNCTION laurel_emit_webhook_event(
    p_account VARCHAR,
    p_event VARCHAR,
    p_idempotency_key VARCHAR,
    p_payload JSONB,
    p_request_id VARCHAR
) RETURNS INTEGER LANGUAGE sql AS $$
    WITH subscribed AS (
        SELECT id FROM webhooks
         WHERE account_address = p_account AND NOT disabled
           AND (cardinality(events) = 0 OR p_event = ANY(events))
    ), event AS (
        INSERT INTO webhook_events (account_address, event, idempotency_key, payload, request_id)
        SELECT p_account, p_event, p_idempotency_key, p_payload, p_request_id
         WHERE EXISTS (SELECT 1 FROM subscribed)
        RETURNING id
    ), delivery AS (
        INSERT INTO webhook_deliveries (webhook_id, event_id)
        SELECT subscribed.id, event.id FROM subscribed, event
        RETURNING id
    )
    SELECT count(laurel_add_delivery_job(delivery.id))::integer FROM delivery
$$;
