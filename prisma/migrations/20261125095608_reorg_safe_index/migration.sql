-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "block_hash" VARCHAR(66);

-- AlterTable
ALTER TABLE "indexer_receipt_logs" ADD COLUMN     "block_hash" VARCHAR(66),
ADD COLUMN     "undo" JSONB;

-- CreateTable
CREATE TABLE "indexed_blocks" (
    "chain_id" INTEGER NOT NULL,
    "block_number" BIGINT NOT NULL,
    "hash" VARCHAR(66) NOT NULL,
    "parent_hash" VARCHAR(66) NOT NULL,
    "undo" JSONB,

    CONSTRAINT "indexed_blocks_pkey" PRIMARY KEY ("chain_id","block_number")
);

-- CreateIndex
CREATE INDEX "transactions_chain_id_block_number_idx" ON "transactions"("chain_id", "block_number");
