-- Nonce reservation, same rule as 20261123124500 (src/chain/nonces.ts), now for several builds of
-- a sender at once (laurel_reserve_nonces: one lock, one round trip for a batch) and in time that
-- no longer grows with the square of the sender's open reservations (with a thousand unsent builds
-- the old search for the smallest free nonce took 20 ms, under the sender's lock). Each nonce is
-- the smallest free one at or above the pending nonce:
--   - no open reservation: the pending nonce;
--   - reservations pending..pending+k-1 without a hole (the usual case, told by their count and
--     maximum, read once per call): the one after the last;
--   - a hole: the pending nonce when free, else the first reserved nonce whose successor is free,
--     found by walking the primary key in order (stops at the first hole).
CREATE FUNCTION "laurel_reserve_nonces"(
    p_chain_id INTEGER,
    p_sender VARCHAR,
    p_pending BIGINT,
    p_ttl_seconds DOUBLE PRECISION,
    p_count INTEGER
) RETURNS SETOF BIGINT LANGUAGE plpgsql AS $$
DECLARE
    reserved BIGINT;
    highest BIGINT;
    held BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(p_chain_id::text || ':' || p_sender));

    DELETE FROM "nonce_reservations"
     WHERE "chain_id" = p_chain_id AND "sender" = p_sender
       AND ("nonce" < p_pending OR "expires_at" < now());

    SELECT max(r."nonce"), count(*) INTO highest, held
      FROM "nonce_reservations" r
     WHERE r."chain_id" = p_chain_id AND r."sender" = p_sender AND r."nonce" >= p_pending;

    FOR i IN 1..p_count LOOP
        IF held = 0 THEN
            reserved := p_pending;
        ELSIF highest - p_pending + 1 = held THEN
            reserved := highest + 1;
        ELSIF NOT EXISTS (SELECT 1 FROM "nonce_reservations" r
                           WHERE r."chain_id" = p_chain_id AND r."sender" = p_sender AND r."nonce" = p_pending) THEN
            reserved := p_pending;
        ELSE
            SELECT r."nonce" + 1 INTO reserved
              FROM "nonce_reservations" r
             WHERE r."chain_id" = p_chain_id AND r."sender" = p_sender AND r."nonce" >= p_pending
               AND NOT EXISTS (SELECT 1 FROM "nonce_reservations" taken
                                WHERE taken."chain_id" = p_chain_id AND taken."sender" = p_sender
                                  AND taken."nonce" = r."nonce" + 1)
             ORDER BY r."nonce"
             LIMIT 1;
        END IF;

        INSERT INTO "nonce_reservations" ("chain_id", "sender", "nonce", "reserved_at", "expires_at")
        VALUES (p_chain_id, p_sender, reserved, now(), now() + make_interval(secs => p_ttl_seconds));

        -- What is held now, without reading it again: one more, and perhaps a new highest.
        held := held + 1;
        highest := greatest(highest, reserved);
        RETURN NEXT reserved;
    END LOOP;
END
$$;

-- The one-nonce form, kept for processes still running the code of before.
CREATE OR REPLACE FUNCTION "laurel_reserve_nonce"(
    p_chain_id INTEGER,
    p_sender VARCHAR,
    p_pending BIGINT,
    p_ttl_seconds DOUBLE PRECISION
) RETURNS BIGINT LANGUAGE sql AS $$
    SELECT "laurel_reserve_nonces"(p_chain_id, p_sender, p_pending, p_ttl_seconds, 1);
$$;
