-- A webhook event and one delivery per subscribed webhook of the account, in one statement (the
-- statement that records a transaction's receipt also emits its `transaction` event). Returns the
-- deliveries' ids. With p_first_attempt_seconds, the deliveries are left to the caller's first
-- attempt for that long (their lease, first_attempt_until; laurel_enqueue_lapsed_first_attempts
-- enqueues those never recorded); without it, each one's job is enqueued at once.
CREATE OR REPLACE FUNCTION laurel_emit_webhook_event(
    p_account VARCHAR,
    p_event VARCHAR,
    p_idempotency_key VARCHAR,
    p_payload JSONB,
    p_request_id VARCHAR,
    p_first_attempt_seconds DOUBLE PRECISION DEFAULT NULL
) RETURNS BIGINT[] LANGUAGE plpgsql AS $$
DECLARE
    v_deliveries BIGINT[];
BEGIN
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
        INSERT INTO webhook_deliveries (webhook_id, event_id, first_attempt_until)
        SELECT subscribed.id, event.id, now() + make_interval(secs => p_first_attempt_seconds)
          FROM subscribed, event
        RETURNING id
    )
    SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO v_deliveries FROM delivery;
    IF p_first_attempt_seconds IS NULL THEN
        PERFORM laurel_add_delivery_job(id) FROM unnest(v_deliveries) AS id;
    END IF;
    RETURN v_deliveries;
END
$$;
