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
