-- True when the job with this key waits to run at `not_before` or later, not locked by a worker.
-- With enable_seqscan = off for the same reason as laurel_remove_job.sql.
CREATE OR REPLACE FUNCTION laurel_job_waiting(job_key text, not_before timestamptz) RETURNS boolean
  LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
  AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM graphile_worker.jobs AS jobs
                  WHERE jobs.key = job_key AND jobs.locked_at IS NULL AND jobs.run_at >= not_before);
END
$$;
