-- Which wallet a transaction was built for: each reservation keeps a SHA-256 of its built
-- transaction's `to` and call data, so that execute can tell a transaction signed by another wallet
-- than the one it was built for (src/chain/nonces.ts, rule 7).
-- AlterTable
ALTER TABLE "nonce_reservations" ADD COLUMN     "call_hash" VARCHAR(66);

-- CreateIndex
CREATE INDEX "nonce_reservations_chain_id_call_hash_idx" ON "nonce_reservations"("chain_id", "call_hash");

-- laurel_reserve_nonces of 20261123170000, one nonce per call hash given (same rule, same search),
-- each reservation stored with its build's call hash.
CREATE FUNCTION "laurel_reserve_nonces"(
    p_chain_id INTEGER,
    p_sender VARCHAR,
    p_pending BIGINT,
    p_ttl_seconds DOUBLE PRECISION,
    p_call_hashes VARCHAR[]
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

    FOR i IN 1..cardinality(p_call_hashes) LOOP
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

        INSERT INTO "nonce_reservations" ("chain_id", "sender", "nonce", "reserved_at", "expires_at", "call_hash")
        VALUES (p_chain_id, p_sender, reserved, now(), now() + make_interval(secs => p_ttl_seconds), p_call_hashes[i]);

        held := held + 1;
        highest := greatest(highest, reserved);
        RETURN NEXT reserved;
    END LOOP;
END
$$;

-- The count form of 20261123170000, kept for processes still running the code of before.
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
