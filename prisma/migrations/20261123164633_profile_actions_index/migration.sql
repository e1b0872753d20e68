-- DropIndex
DROP INDEX "completed_actions_chain_id_user_address_block_number_idx";

-- CreateIndex
CREATE INDEX "completed_actions_profile_idx" ON "completed_actions"("chain_id", "user_address", "block_number", "log_index", "app_address", "kind", "action_name", "amount", "block_time");

-- Room on every page for in-place (HOT) updates of the running sums the indexer adds to in each
-- block range (their amounts are in no index), instead of a new index entry per update.
ALTER TABLE "reward_daily_totals" SET (fillfactor = 80);
ALTER TABLE "token_balances" SET (fillfactor = 80);
