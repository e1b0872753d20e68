-- A build's read of the sender's pending nonce that began before the read that set the sender's
-- floor, and counts fewer, is stale, not a sign of dropped transactions (issue 26: bench:flow met
-- it about once in 1,700 rewards; the build got a nonce the chain had used, and its send was
-- refused with nonce_too_low). Builds now say when their read began (p_pending_read_at, the
-- building process's clock); nonce_senders keeps the latest such time that set or confirmed the
-- floor. The function of the version before stays, for processes still running it during an
-- upgrade, and takes every read as current, as before.
ALTER TABLE "nonce_senders" ADD COLUMN     "pending_read_at" TIMESTAMPTZ(3);

-- The rest as in migration 20261125150000 (the rules are written there).
CREATE FUNCTION "laurel_reserve_nonces"(
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
-- estimated one row for any sender and read every reservation of the sender through the other
-- index: builds slowed down with each reservation held (6,000 to 1,000 nonces/s in 20 s).
SET enable_sort = off;
