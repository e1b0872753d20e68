-- Removes a webhook delivery's pending job, if any (see laurel_add_delivery_job.sql). With
-- enable_seqscan = off for the same reason as laurel_remove_job.sql.
CREATE OR REPLACE FUNCTION laurel_remove_delivery_job(delivery_id bigint) RETURNS void
  LANGUAGE plpgsql
  SET enable_seqscan = off
  AS $$
BEGIN
  PERFORM graphile_worker.remove_job(laurel_delivery_job_key(delivery_id));
END
$$;
