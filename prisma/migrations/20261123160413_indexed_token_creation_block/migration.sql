-- AlterTable
ALTER TABLE "indexed_tokens" ADD COLUMN     "block_number" BIGINT NOT NULL DEFAULT 0;
