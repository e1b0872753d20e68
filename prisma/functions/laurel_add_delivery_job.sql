-- The job of a webhook delivery, stated once: the task that makes one attempt, its payload, its key
-- (one pending job per delivery: scheduling the next attempt replaces it, and a deleted webhook's
-- jobs are removed by it) and how often graphile-worker retries the job itself (when the database
-- fails, not the call: calls are retried by scheduling the next attempt). Every statement that
-- schedules or removes a delivery goes through laurel_add_delivery_job and laurel_remove_delivery_job.
-- This one enqueues (or, by its key, replaces) the delivery's job, to run at run_at (now when NULL).
CREATE OR REPLACE FUNCTION laurel_add_delivery_job(delivery_id bigint, run_at timestamptz DEFAULT NULL) RETURNS void
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM graphile_worker.add_job(
    identifier => 'webhook_deliveries__deliver',
    payload => json_build_object('deliveryId', delivery_id::text),
    job_key => laurel_delivery_job_key(delivery_id),
    run_at => run_at,
    max_attempts => 10
  );
END
$$;
