-- The graphile-worker job key of a webhook delivery: one pending job per delivery (scheduling the
-- next attempt replaces it; laurel_remove_delivery_job removes it). See laurel_add_delivery_job.sql.
CREATE OR REPLACE FUNCTION laurel_delivery_job_key(delivery_id bigint) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT 'webhook_deliveries__deliver:' || delivery_id $$;
