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
