-- The fetch job of a badge metadata URI, stated once: one pending job per URI (a retry or refresh
-- replaces it), keyed by the URI's hash (a key is indexed: a URI may be longer than an index entry
-- allows), and retried by graphile-worker itself only when the database fails (fetches that fail are
-- retried by scheduling the next attempt). Each job is in one of 4 graphile-worker queues (by the
-- URI's hash), which run their jobs one at a time: at most 4 fetches run at once across every worker
-- process, so hosts that are slow on purpose never hold more than 4 job slots (receipts and webhook
-- deliveries keep the others).
CREATE OR REPLACE FUNCTION laurel_add_badge_metadata_job(uri text, attempt int DEFAULT 1, run_at timestamptz DEFAULT NULL)
  RETURNS void
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM graphile_worker.add_job(
    identifier => 'badge_metadata__fetch',
    payload => json_build_object('uri', uri, 'attempt', attempt),
    queue_name => 'badge_metadata_' || (hashtext(uri) & 3),
    job_key => 'badge_metadata__fetch:' || md5(uri),
    run_at => run_at,
    max_attempts => 10
  );
END
$$;
