-- Looking a job up by its key reads the key's unique index, however many jobs are queued. A plan
-- kept by a connection (a prepared statement, a PL/pgSQL function's statement) made while the queue
-- was drained reads every job instead: 285-287 pages per call with 20,000 jobs queued, against 3
-- through the index for the look and 40 for a removal that deletes a job
-- (test/integration/query-plans.test.ts). The setting holds only while these functions run.

-- graphile_worker.remove_job, with the setting for its statements' plans (graphile-worker's
-- function itself is left as its migrations make it).
CREATE FUNCTION laurel_remove_job(job_key text) RETURNS void
  LANGUAGE plpgsql
  SET enable_seqscan = off
  AS $$
BEGIN
  PERFORM graphile_worker.remove_job(job_key);
END
$$;

-- True when the job with this key waits to run at `not_before` or later, not locked by a worker.
CREATE FUNCTION laurel_job_waiting(job_key text, not_before timestamptz) RETURNS boolean
  LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
  AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM graphile_worker.jobs AS jobs
                  WHERE jobs.key = job_key AND jobs.locked_at IS NULL AND jobs.run_at >= not_before);
END
$$;

ALTER FUNCTION laurel_remove_delivery_job(bigint) SET enable_seqscan = off;
