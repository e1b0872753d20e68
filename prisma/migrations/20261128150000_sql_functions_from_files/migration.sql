-- Written by npm run db:function from the current definitions of these SQL functions (change a
-- function in its file, then write a new migration from it):
--   prisma/functions/laurel_add_badge_metadata_job.sql
--   prisma/functions/laurel_add_delivery_job.sql
--   prisma/functions/laurel_badge_metadata_wanted.sql
--   prisma/functions/laurel_delivery_job_key.sql
--   prisma/functions/laurel_emit_webhook_event.sql
--   prisma/functions/laurel_enqueue_lapsed_first_attempts.sql
--   prisma/functions/laurel_job_waiting.sql
--   prisma/functions/laurel_remove_delivery_job.sql
--   prisma/functions/laurel_remove_job.sql
--   prisma/functions/laurel_reserve_nonce.sql
--   prisma/functions/laurel_reserve_nonces.sql

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

-- The indexer saw a badge with this base URI: its row is made, and its first fetch enqueued, unless
-- the URI is known already. An existing row is touched rather than only read: the row lock orders
-- this against the fetch job forgetting a URI no badge names (a badge of a reorganised block; see
-- BadgeMetadataRepository.forgetUnused), so a URI is never forgotten for a badge being indexed.
-- No URI: nothing to fetch; a URI longer than 2048 characters is not fetched (no metadata host
-- needs one, and an index entry could not hold it).
CREATE OR REPLACE FUNCTION laurel_badge_metadata_wanted(uri text) RETURNS void
  LANGUAGE plpgsql
  AS $$
DECLARE
  created boolean;
BEGIN
  IF length(uri) NOT BETWEEN 1 AND 2048 THEN
    RETURN;
  END IF;
  INSERT INTO badge_metadata AS m (uri) VALUES ($1)
    ON CONFLICT ON CONSTRAINT badge_metadata_pkey DO UPDATE SET uri = EXCLUDED.uri
    RETURNING m.xmax = 0 INTO created;
  IF created THEN
    PERFORM laurel_add_badge_metadata_job($1);
  END IF;
END
$$;

-- The graphile-worker job key of a webhook delivery: one pending job per delivery (scheduling the
-- next attempt replaces it; laurel_remove_delivery_job removes it). See laurel_add_delivery_job.sql.
CREATE OR REPLACE FUNCTION laurel_delivery_job_key(delivery_id bigint) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT 'webhook_deliveries__deliver:' || delivery_id $$;

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

-- The one-nonce form of laurel_reserve_nonces, kept for processes of earlier versions during an
-- upgrade (the current code calls laurel_reserve_nonces).
CREATE OR REPLACE FUNCTION "laurel_reserve_nonce"(
    p_chain_id INTEGER,
    p_sender VARCHAR,
    p_pending BIGINT,
    p_ttl_seconds DOUBLE PRECISION
) RETURNS BIGINT LANGUAGE sql AS $$
    SELECT "laurel_reserve_nonces"(p_chain_id, p_sender, p_pending, p_ttl_seconds, 1);
$$;

-- Nonce reservation (the rules of src/chain/nonces.ts): each build gets the smallest nonce at or
-- above the sender's pending nonce that no live reservation holds, one nonce per call hash given
-- (each reservation keeps its build's call hash). A sender keeps a gap structure, so a call costs
-- the same whatever the sender holds or has let lapse: nonce_senders says where the nonces handed
-- out end, free_nonces lists the free ones below that, and lapsed leases are found through an index
-- on expires_at. A call costs a few index probes per call and per nonce, plus the rows it drops:
-- every reservation lapses, is released or is passed by the chain once. In the common case it runs
-- three statements and one insert per nonce (each statement of a plpgsql function costs about as
-- much as the probes it runs, and a sender's builds wait for one another's calls):
--   1. the sender's lock, and where the last call left off (first call: from the pending nonce);
--   2. when the pending nonce moved up, reservations and free nonces below it are dropped (the
--      chain has used those nonces); when the node counts fewer than at the last call
--      (transactions dropped, a stale node), the nonces between that were not kept are free again.
--      A read of the pending nonce that began (p_pending_read_at, the building process's clock)
--      before the read that set the floor, and counts fewer, is stale, not a sign of dropped
--      transactions: the floor stands. nonce_senders keeps the latest such time that set or
--      confirmed the floor;
--   3. lapsed leases go, their nonces listed free (at most 10,000 a call: a build does not pay
--      for a sweep of a whole day's builds; the rest go with the next calls);
--   4. the end of what is handed out follows the reservations still held: nonces recorded above
--      it without a build here (a transaction built elsewhere, marked broadcast) list the nonces
--      they skipped as free; when the highest reservations went (released, lapsed, deleted), it
--      comes down to after the highest one left;
--   5. each build takes the lowest free nonce below that end (no free nonce: not looked for),
--      else the end itself. A nonce that was reserved meanwhile by other means
--      (markNonceBroadcast does not take the lock) is skipped: the reservation's insert does
--      nothing and the next one is tried.
-- Whoever else deletes reservations lists their nonces in free_nonces in the same statement
-- (releaseUnsentNonces, freeNoncesOf); reservations deleted by hand only lose their nonces until
-- the chain passes them, unless they were the highest (4).
CREATE OR REPLACE FUNCTION "laurel_reserve_nonces"(
    p_chain_id INTEGER,
    p_sender VARCHAR,
    p_pending BIGINT,
    p_ttl_seconds DOUBLE PRECISION,
    p_call_hashes VARCHAR[],
    p_pending_read_at TIMESTAMPTZ
) RETURNS SETOF BIGINT LANGUAGE plpgsql AS $$
DECLARE
    floor_nonce BIGINT;
    end_nonce BIGINT;
    floor_read_at TIMESTAMPTZ;
    highest BIGINT;
    lowest_free BIGINT;
    reserved BIGINT;
    free_listed BOOLEAN;
    known BOOLEAN;
    -- The free nonces taken by this call: the next is above them (the index entries they leave
    -- until VACUUM are not walked again).
    popped BIGINT := -1;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(p_chain_id::text || ':' || p_sender));

    -- One statement for what a call reads (a statement is most of a call's cost): where the last
    -- call left off, the lapsed leases (deleted, their nonces listed free: 3), the highest
    -- reservation still held (4) and the lowest free nonce (none: the builds skip the free list).
    WITH lapsed AS (
        DELETE FROM "nonce_reservations" r
         WHERE r."chain_id" = p_chain_id AND r."sender" = p_sender
           AND r."nonce" = ANY (ARRAY(SELECT l."nonce" FROM "nonce_reservations" l
                                       WHERE l."chain_id" = p_chain_id AND l."sender" = p_sender
                                         AND l."expires_at" < now()
                                       ORDER BY l."expires_at"
                                       LIMIT 10000))
        RETURNING r."nonce"
    ), listed AS (
        INSERT INTO "free_nonces" ("chain_id", "sender", "nonce")
        SELECT p_chain_id, p_sender, lapsed."nonce" FROM lapsed
        ON CONFLICT DO NOTHING
    )
    SELECT s."pending_floor", s."next_nonce", s."pending_read_at",
           (SELECT r."nonce" FROM "nonce_reservations" r
             WHERE r."chain_id" = p_chain_id AND r."sender" = p_sender
               AND r."nonce" NOT IN (SELECT lapsed."nonce" FROM lapsed)
             ORDER BY r."nonce" DESC
             LIMIT 1),
           least((SELECT f."nonce" FROM "free_nonces" f
                   WHERE f."chain_id" = p_chain_id AND f."sender" = p_sender
                   ORDER BY f."nonce"
                   LIMIT 1),
                 (SELECT min(lapsed."nonce") FROM lapsed))
      INTO floor_nonce, end_nonce, floor_read_at, highest, lowest_free
      FROM (SELECT 1) AS one
      LEFT JOIN "nonce_senders" s ON s."chain_id" = p_chain_id AND s."sender" = p_sender;
    known := floor_nonce IS NOT NULL;
    free_listed := lowest_free IS NOT NULL;
    IF NOT known THEN
        floor_nonce := p_pending;
        end_nonce := p_pending;
    END IF;
    -- A read begun before the one that set the floor, and counting fewer, is stale: the chain moved
    -- on while its answer was on the way (another build read and reserved meanwhile). The floor
    -- stands; only a read begun later that counts fewer means transactions were dropped.
    IF p_pending < floor_nonce AND p_pending_read_at < floor_read_at THEN
        p_pending := floor_nonce;
    END IF;

    IF p_pending > floor_nonce OR NOT known THEN
        DELETE FROM "nonce_reservations" r
         WHERE r."chain_id" = p_chain_id AND r."sender" = p_sender
           AND r."nonce" = ANY (ARRAY(SELECT b."nonce" FROM "nonce_reservations" b
                                       WHERE b."chain_id" = p_chain_id AND b."sender" = p_sender
                                         AND b."nonce" < p_pending
                                       ORDER BY b."nonce"));
        DELETE FROM "free_nonces"
         WHERE "chain_id" = p_chain_id AND "sender" = p_sender AND "nonce" < p_pending;
    ELSIF p_pending < floor_nonce THEN
        INSERT INTO "free_nonces" ("chain_id", "sender", "nonce")
        SELECT p_chain_id, p_sender, g FROM generate_series(p_pending, least(floor_nonce, end_nonce) - 1) g
        ON CONFLICT DO NOTHING;
        free_listed := true;
    END IF;

    end_nonce := greatest(end_nonce, p_pending);
    IF highest >= end_nonce THEN
        INSERT INTO "free_nonces" ("chain_id", "sender", "nonce")
        SELECT p_chain_id, p_sender, g FROM generate_series(end_nonce, highest - 1) g
         WHERE NOT EXISTS (SELECT 1 FROM "nonce_reservations" r
                            WHERE r."chain_id" = p_chain_id AND r."sender" = p_sender AND r."nonce" = g)
        ON CONFLICT DO NOTHING;
        free_listed := true;
        end_nonce := highest + 1;
    ELSIF coalesce(highest + 1, p_pending) < end_nonce THEN
        end_nonce := greatest(coalesce(highest + 1, p_pending), p_pending);
        DELETE FROM "free_nonces"
         WHERE "chain_id" = p_chain_id AND "sender" = p_sender AND "nonce" >= end_nonce;
    END IF;

    FOR i IN 1..cardinality(p_call_hashes) LOOP
        LOOP
            reserved := NULL;
            IF free_listed THEN
                DELETE FROM "free_nonces" f
                 WHERE f."chain_id" = p_chain_id AND f."sender" = p_sender
                   AND f."nonce" = (SELECT min(lowest."nonce") FROM "free_nonces" lowest
                                     WHERE lowest."chain_id" = p_chain_id AND lowest."sender" = p_sender
                                       AND lowest."nonce" > popped AND lowest."nonce" < end_nonce)
                RETURNING f."nonce" INTO reserved;
                free_listed := reserved IS NOT NULL;
                popped := coalesce(reserved, popped);
            END IF;
            IF reserved IS NULL THEN
                reserved := end_nonce;
                end_nonce := end_nonce + 1;
            END IF;
            INSERT INTO "nonce_reservations" ("chain_id", "sender", "nonce", "reserved_at", "expires_at", "call_hash")
            VALUES (p_chain_id, p_sender, reserved, now(), now() + make_interval(secs => p_ttl_seconds), p_call_hashes[i])
            ON CONFLICT DO NOTHING;
            EXIT WHEN FOUND;
        END LOOP;
        RETURN NEXT reserved;
    END LOOP;

    INSERT INTO "nonce_senders" ("chain_id", "sender", "pending_floor", "next_nonce", "pending_read_at")
    VALUES (p_chain_id, p_sender, p_pending, end_nonce, greatest(floor_read_at, p_pending_read_at))
    ON CONFLICT ("chain_id", "sender")
      DO UPDATE SET "pending_floor" = EXCLUDED."pending_floor", "next_nonce" = EXCLUDED."next_nonce",
                    "pending_read_at" = EXCLUDED."pending_read_at";
END
$$
-- Each statement reads the index it is written for, whatever the statistics say: the queries
-- that read in nonce or expires_at order get the index of that order, as no sort is planned.
-- On a table never analysed (young, or changing faster than autovacuum comes), the planner
-- estimates one row for any sender and reads every reservation of the sender through the other
-- index, so builds slow down with each reservation held.
SET enable_sort = off;

-- The forms of earlier versions, kept for their processes during an upgrade. Without a read time no
-- read is taken for stale, and the sender's recorded read time stays as it was.
CREATE OR REPLACE FUNCTION "laurel_reserve_nonces"(
    p_chain_id INTEGER,
    p_sender VARCHAR,
    p_pending BIGINT,
    p_ttl_seconds DOUBLE PRECISION,
    p_call_hashes VARCHAR[]
) RETURNS SETOF BIGINT LANGUAGE sql AS $$
    SELECT "laurel_reserve_nonces"(p_chain_id, p_sender, p_pending, p_ttl_seconds, p_call_hashes,
                                   NULL::TIMESTAMPTZ);
$$;

-- One nonce per count, without call hashes.
CREATE OR REPLACE FUNCTION "laurel_reserve_nonces"(
    p_chain_id INTEGER,
    p_sender VARCHAR,
    p_pending BIGINT,
    p_ttl_seconds DOUBLE PRECISION,
    p_count INTEGER
) RETURNS SETOF BIGINT LANGUAGE sql AS $$
    SELECT "laurel_reserve_nonces"(p_chain_id, p_sender, p_pending, p_ttl_seconds,
                                   array_fill(NULL::VARCHAR, ARRAY[p_count]));
$$;
