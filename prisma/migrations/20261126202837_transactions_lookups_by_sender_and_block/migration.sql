-- DropIndex
DROP INDEX "transactions_chain_id_block_number_idx";

-- CreateIndex
CREATE INDEX "transactions_block_number_chain_id_idx" ON "transactions"("block_number", "chain_id");

-- CreateIndex
CREATE INDEX "transactions_from_address_chain_id_nonce_idx" ON "transactions"("from_address", "chain_id", "nonce");
