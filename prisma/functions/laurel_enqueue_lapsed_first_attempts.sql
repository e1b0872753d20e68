-- The deliveries whose first attempt was never recorded within its lease (the process that recorded
-- the event died or stopped first): each one's job enqueued, the lease cleared so that it is enqueued
-- once. Returns how many (webhook_deliveries__recover).
CREATE OR REPLACE FUNCTION laurel_enqueue_lapsed_first_attempts() RETURNS INTEGER LANGUAGE sql AS $$
    WITH lapsed AS (
        UPDATE webhook_deliveries SET first_attempt_until = NULL, updated_at = now()
         WHERE first_attempt_until < now()
        RETURNING id, status
    )
    SELECT count(laurel_add_delivery_job(id))::integer FROM lapsed WHERE status = 'pending'
$$;
