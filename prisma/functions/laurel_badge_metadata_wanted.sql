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
