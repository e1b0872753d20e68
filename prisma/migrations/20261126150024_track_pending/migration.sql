-- execute-and-wait follows its transaction's receipt itself, without a receipt job (issue 26:
-- enqueueing one with every send, to remove it once the receipt came, was most of a send's database
-- work): `track_from` is when its wait ends. A transaction still pending past that (the request's
-- process died, or the database failed as the receipt was recorded) is given to a receipt job by
-- transactions__track_pending, which finds it by this index.
-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "track_from" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "transactions_track_from_idx" ON "transactions"("track_from");
