-- One body for laurel_reserve_nonces. Migration 20261126223404 added the form that takes when the
-- pending nonce's read began, and left the form without it (kept for processes of the version
-- before, during an upgrade) with its own copy of the whole function. That form is now the new one
-- with no read time, which behaves as it did: without a read time no read is taken for stale, and
-- the sender's recorded read time stays as it was.
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
