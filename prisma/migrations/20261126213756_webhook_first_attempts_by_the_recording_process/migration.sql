-- The first attempt of a delivery made by the process that recorded its event, right after the
-- commit, instead of by a job (issue 26: a graphile-worker job per delivery, added, fetched and
-- completed, cost more than the rest of the flow's webhook together). The delivery keeps its
-- lease in first_attempt_until; a recorded scheduled attempt clears it; past it (the process died
-- or stopped before recording), webhook_deliveries__recover enqueues the delivery's job.
ALTER TABLE "webhook_deliveries" ADD COLUMN     "first_attempt_until" TIMESTAMPTZ(3);

CREATE INDEX "webhook_deliveries_first_attempt_until_idx" ON "webhook_deliveries"("first_attempt_until");

-- Now returns the deliveries' ids. With p_first_attempt_seconds, the deliveries are left to the
-- caller's first attempt for that long; without it, each one's job is enqueued at once.
DROP FUNCTION laurel_emit_webhook_event(VARCHAR, VARCHAR, VARCHAR, JSONB, VARCHAR);

CREATE FUNCTION laurel_emit_webhook_event(
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

-- The deliveries whose first attempt was never recorded within its lease: each one's job enqueued
-- (the lease cleared, so that it is enqueued once). Returns how many.
CREATE FUNCTION laurel_enqueue_lapsed_first_attempts() RETURNS INTEGER LANGUAGE sql AS $$
    WITH lapsed AS (
        UPDATE webhook_deliveries SET first_attempt_until = NULL, updated_at = now()
         WHERE first_attempt_until < now()
        RETURNING id, status
    )
    SELECT count(laurel_add_delivery_job(id))::integer FROM lapsed WHERE status = 'pending'
$$;
