-- CreateEnum
CREATE TYPE "indexed_token_kind" AS ENUM ('xp', 'credit', 'point');

-- CreateEnum
CREATE TYPE "reward_kind" AS ENUM ('xp', 'badge', 'credit_mint', 'credit_transfer', 'point');

-- CreateTable
CREATE TABLE "indexer_cursors" (
    "chain_id" INTEGER NOT NULL,
    "block_number" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "indexer_cursors_pkey" PRIMARY KEY ("chain_id")
);

-- CreateTable
CREATE TABLE "indexer_receipt_logs" (
    "chain_id" INTEGER NOT NULL,
    "block_number" BIGINT NOT NULL,
    "log_index" INTEGER NOT NULL,

    CONSTRAINT "indexer_receipt_logs_pkey" PRIMARY KEY ("chain_id","block_number","log_index")
);

-- CreateTable
CREATE TABLE "indexed_apps" (
    "chain_id" INTEGER NOT NULL,
    "address" VARCHAR(42) NOT NULL,
    "owner" VARCHAR(42) NOT NULL,
    "name" TEXT NOT NULL,
    "xp_token" VARCHAR(42) NOT NULL,
    "block_number" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "indexed_apps_pkey" PRIMARY KEY ("chain_id","address")
);

-- CreateTable
CREATE TABLE "indexed_app_operators" (
    "chain_id" INTEGER NOT NULL,
    "app_address" VARCHAR(42) NOT NULL,
    "operator" VARCHAR(42) NOT NULL,

    CONSTRAINT "indexed_app_operators_pkey" PRIMARY KEY ("chain_id","app_address","operator")
);

-- CreateTable
CREATE TABLE "indexed_tokens" (
    "chain_id" INTEGER NOT NULL,
    "address" VARCHAR(42) NOT NULL,
    "app_address" VARCHAR(42) NOT NULL,
    "kind" "indexed_token_kind" NOT NULL,
    "name" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "decimals" INTEGER NOT NULL,

    CONSTRAINT "indexed_tokens_pkey" PRIMARY KEY ("chain_id","address")
);

-- CreateTable
CREATE TABLE "indexed_badges" (
    "chain_id" INTEGER NOT NULL,
    "address" VARCHAR(42) NOT NULL,
    "app_address" VARCHAR(42) NOT NULL,
    "name" TEXT NOT NULL,
    "base_uri" TEXT NOT NULL,
    "block_number" BIGINT NOT NULL,

    CONSTRAINT "indexed_badges_pkey" PRIMARY KEY ("chain_id","address")
);

-- CreateTable
CREATE TABLE "token_balances" (
    "chain_id" INTEGER NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "holder" VARCHAR(42) NOT NULL,
    "balance" DECIMAL(78,0) NOT NULL,

    CONSTRAINT "token_balances_pkey" PRIMARY KEY ("chain_id","token_address","holder")
);

-- CreateTable
CREATE TABLE "badge_holdings" (
    "chain_id" INTEGER NOT NULL,
    "badge_address" VARCHAR(42) NOT NULL,
    "holder" VARCHAR(42) NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "badge_holdings_pkey" PRIMARY KEY ("chain_id","badge_address","holder")
);

-- CreateTable
CREATE TABLE "completed_actions" (
    "id" BIGSERIAL NOT NULL,
    "chain_id" INTEGER NOT NULL,
    "app_address" VARCHAR(42) NOT NULL,
    "user_address" VARCHAR(42) NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "kind" "reward_kind" NOT NULL,
    "action_name" TEXT NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "block_number" BIGINT NOT NULL,
    "block_time" TIMESTAMPTZ(0) NOT NULL,
    "transaction_hash" VARCHAR(66) NOT NULL,
    "log_index" INTEGER NOT NULL,

    CONSTRAINT "completed_actions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reward_daily_totals" (
    "chain_id" INTEGER NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "day" DATE NOT NULL,
    "user_address" VARCHAR(42) NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,

    CONSTRAINT "reward_daily_totals_pkey" PRIMARY KEY ("chain_id","token_address","day","user_address")
);

-- CreateTable
CREATE TABLE "reward_totals" (
    "chain_id" INTEGER NOT NULL,
    "token_address" VARCHAR(42) NOT NULL,
    "user_address" VARCHAR(42) NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,

    CONSTRAINT "reward_totals_pkey" PRIMARY KEY ("chain_id","token_address","user_address")
);

-- CreateIndex
CREATE INDEX "indexed_apps_chain_id_owner_idx" ON "indexed_apps"("chain_id", "owner");

-- CreateIndex
CREATE INDEX "indexed_app_operators_chain_id_operator_idx" ON "indexed_app_operators"("chain_id", "operator");

-- CreateIndex
CREATE INDEX "indexed_tokens_chain_id_app_address_idx" ON "indexed_tokens"("chain_id", "app_address");

-- CreateIndex
CREATE INDEX "indexed_badges_chain_id_app_address_idx" ON "indexed_badges"("chain_id", "app_address");

-- CreateIndex
CREATE INDEX "token_balances_chain_id_holder_idx" ON "token_balances"("chain_id", "holder");

-- CreateIndex
CREATE INDEX "badge_holdings_chain_id_holder_idx" ON "badge_holdings"("chain_id", "holder");

-- CreateIndex
CREATE INDEX "completed_actions_chain_id_user_address_block_number_idx" ON "completed_actions"("chain_id", "user_address", "block_number");

-- CreateIndex
CREATE INDEX "completed_actions_chain_id_token_address_block_time_idx" ON "completed_actions"("chain_id", "token_address", "block_time");

-- CreateIndex
CREATE INDEX "completed_actions_chain_id_kind_block_time_idx" ON "completed_actions"("chain_id", "kind", "block_time");

-- CreateIndex
CREATE UNIQUE INDEX "completed_actions_chain_id_block_number_log_index_key" ON "completed_actions"("chain_id", "block_number", "log_index");

-- CreateIndex
CREATE INDEX "reward_totals_chain_id_token_address_amount_user_address_idx" ON "reward_totals"("chain_id", "token_address", "amount" DESC, "user_address");
