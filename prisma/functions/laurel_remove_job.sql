-- graphile_worker.remove_job, with the setting below for its statements' plans (graphile-worker's
-- function itself is left as its migrations make it).
-- enable_seqscan = off: a job is looked up by its key's unique index however many jobs are queued;
-- a plan kept by a connection (a PL/pgSQL function's statement) made while the queue was drained
-- would read every job instead (test/integration/query-plans.test.ts). The setting holds only while
-- the function runs.
CREATE OR REPLACE FUNCTION laurel_remove_job(job_key text) RETURNS void
  LANGUAGE plpgsql
  SET enable_seqscan = off
  AS $$
BEGIN
  PERFORM graphile_worker.remove_job(job_key);
END
$$;
