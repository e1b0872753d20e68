-- Names, symbols and base URIs come from anyone who calls the open factory. Each is stored as text
-- PostgreSQL accepts (NUL and invalid UTF-8 replaced by U+FFFD, cut to CHAIN_TEXT_MAX_BYTES); when
-- that text is not exactly the chain's value, the value's bytes are kept beside it (else NULL).
ALTER TABLE "indexed_apps" ADD COLUMN "name_raw" BYTEA;
ALTER TABLE "indexed_tokens" ADD COLUMN "name_raw" BYTEA,
ADD COLUMN "symbol_raw" BYTEA;
ALTER TABLE "indexed_badges" ADD COLUMN "name_raw" BYTEA,
ADD COLUMN "base_uri_raw" BYTEA;

-- Events of Laurel's contracts the indexer passed without writing them, for an operator to look at.
CREATE TABLE "unindexable_events" (
    "chain_id" INTEGER NOT NULL,
    "block_number" BIGINT NOT NULL,
    "log_index" INTEGER NOT NULL,
    "transaction_hash" VARCHAR(66) NOT NULL,
    "address" VARCHAR(42) NOT NULL,
    "reason" TEXT NOT NULL,
    "topics" TEXT[],
    "data" BYTEA NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "unindexable_events_pkey" PRIMARY KEY ("chain_id","block_number","log_index")
);

CREATE INDEX "unindexable_events_recorded_at_idx" ON "unindexable_events"("recorded_at");
