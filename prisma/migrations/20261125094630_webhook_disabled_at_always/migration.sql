-- `disabled_at` is the interface's timestamp string on every webhook: the time it was last disabled.
-- A webhook is created disabled, so a row that never had one gets its creation time; activation
-- keeps it (src/modules/webhooks/webhook-deliveries.repository.ts).
UPDATE "webhooks" SET "disabled_at" = "created_at" WHERE "disabled_at" IS NULL;

-- AlterTable
ALTER TABLE "webhooks" ALTER COLUMN "disabled_at" SET NOT NULL,
ALTER COLUMN "disabled_at" SET DEFAULT CURRENT_TIMESTAMP;
