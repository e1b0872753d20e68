-- Read-only API keys and key expiry; the account's transactions listed newest first.
CREATE TYPE "api_key_scope" AS ENUM ('full', 'read');

ALTER TABLE "api_keys" ADD COLUMN "scope" "api_key_scope" NOT NULL DEFAULT 'full',
ADD COLUMN "expires_at" TIMESTAMPTZ(3);

-- The listing reads an account's rows newest first, ties by id: the index gives that order whole.
DROP INDEX "transactions_account_address_created_at_idx";
CREATE INDEX "transactions_account_address_created_at_id_idx" ON "transactions"("account_address", "created_at", "id");
