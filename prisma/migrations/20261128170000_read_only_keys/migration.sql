-- Read-only API keys and key expiry; the account's transactions listed newest first.
CREATE TYPE "api_key_scope" AS ENUM ('full', 'read');

ALTER TABLE "api_keys" ADD COLUMN "scope" "api_key_scope" NOT NULL DEFAULT 'full',
ADD COLUMN "expires_at" TIMESTAMPTZ(3);

CREATE INDEX "transactions_account_address_id_idx" ON "transactions"("account_address", "id");
