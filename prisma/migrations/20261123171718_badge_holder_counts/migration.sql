-- AlterTable
ALTER TABLE "indexed_badges" ADD COLUMN     "holders" INTEGER NOT NULL DEFAULT 0;

-- The holders of badges indexed so far.
UPDATE "indexed_badges" b SET "holders" = h.n
FROM (SELECT chain_id, badge_address, count(*)::int AS n FROM "badge_holdings" WHERE "count" > 0
      GROUP BY chain_id, badge_address) h
WHERE b.chain_id = h.chain_id AND b.address = h.badge_address;
