-- Badge metadata, resolved and cached by URI (a badge's base URI, its `metadataURI`; badges that
-- share a URI share its document). A row is made when the indexer first sees a badge naming the
-- URI, and filled by the badge_metadata__fetch job; profiles and badge listings join it to the
-- indexed badges.
CREATE TABLE "badge_metadata" (
    "uri" TEXT NOT NULL,
    "document" JSONB,
    "fetched_at" TIMESTAMPTZ(3),
    "error" TEXT,
    "attempted_at" TIMESTAMPTZ(3),
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "badge_metadata_pkey" PRIMARY KEY ("uri")
);

-- Which chains' indexes name a URI (their read caches are told when its document changes).
CREATE INDEX "indexed_badges_base_uri_idx" ON "indexed_badges"("base_uri");

-- The fetch job of a URI, stated once: one pending job per URI (a retry or refresh replaces it),
-- keyed by the URI's hash (a key is indexed: a URI may be longer than an index entry allows), and
-- retried by graphile-worker itself only when the database fails (fetches that fail are retried
-- by scheduling the next attempt). Each job is in one of 4 graphile-worker queues (by the URI's
-- hash), which run their jobs one at a time: at most 4 fetches run at once across every worker
-- process, so hosts that are slow on purpose never hold more than 4 job slots (receipts and
-- webhook deliveries keep the others).
CREATE FUNCTION laurel_add_badge_metadata_job(uri text, attempt int DEFAULT 1, run_at timestamptz DEFAULT NULL)
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

-- The indexer saw a badge with this base URI: its row is made, and its first fetch enqueued, unless
-- the URI is known already. An existing row is touched rather than only read: the row lock orders
-- this against the fetch job forgetting a URI no badge names (a badge of a reorganised block; see
-- BadgeMetadataRepository.forgetUnused), so a URI is never forgotten for a badge being indexed.
-- No URI: nothing to fetch; a URI longer than 2048 characters is not fetched (no metadata host
-- needs one, and an index entry could not hold it).
CREATE FUNCTION laurel_badge_metadata_wanted(uri text) RETURNS void
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
