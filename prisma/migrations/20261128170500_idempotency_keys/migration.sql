-- Idempotency-Key: the answer to the first request under a key, per account and operation, so a
-- retry gets it again instead of doing the work twice (src/operations/idempotency.ts).
CREATE TABLE "idempotency_records" (
    "account_address" VARCHAR(42) NOT NULL,
    "operation" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "status" TEXT NOT NULL,
    "holder" UUID,
    "locked_until" TIMESTAMPTZ(3),
    "answer" JSON,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("account_address","operation","key")
);

CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");
