-- Reserves the next nonce of a sender in one round trip instead of an interactive transaction of
-- five. The rule is documented in src/chain/nonces.ts. The function is VOLATILE (the default), so
-- each statement below takes a fresh snapshot after the advisory lock is held: it sees every
-- reservation committed by the builds that held the lock before it.
CREATE FUNCTION "laurel_reserve_nonce"(
    p_chain_id INTEGER,
    p_sender VARCHAR,
    p_pending BIGINT,
    p_ttl_seconds DOUBLE PRECISION
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    reserved BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(p_chain_id::text || ':' || p_sender));

    DELETE FROM "nonce_reservations"
     WHERE "chain_id" = p_chain_id AND "sender" = p_sender
       AND ("nonce" < p_pending OR "expires_at" < now());

    SELECT min(candidate.nonce) INTO reserved
      FROM (SELECT p_pending AS nonce
            UNION ALL
            SELECT r."nonce" + 1 FROM "nonce_reservations" r
             WHERE r."chain_id" = p_chain_id AND r."sender" = p_sender AND r."nonce" >= p_pending) AS candidate
     WHERE NOT EXISTS (SELECT 1 FROM "nonce_reservations" taken
                        WHERE taken."chain_id" = p_chain_id AND taken."sender" = p_sender
                          AND taken."nonce" = candidate.nonce);

    INSERT INTO "nonce_reservations" ("chain_id", "sender", "nonce", "reserved_at", "expires_at")
    VALUES (p_chain_id, p_sender, reserved, now(), now() + make_interval(secs => p_ttl_seconds));

    RETURN reserved;
END
$$;
