-- Laurel sends again a transaction it recorded that the node no longer knows (recorded but never
-- sent, or dropped by a reorganisation or the node's pool): it keeps the signed bytes, counts the
-- sends it made again, and says why a transaction was finally dropped.
ALTER TABLE "transactions" ADD COLUMN "signed_transaction" BYTEA,
ADD COLUMN "rebroadcasts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "rebroadcast_at" TIMESTAMPTZ(3),
ADD COLUMN "dropped_reason" TEXT;
