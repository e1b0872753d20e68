-- A rotation may keep the replaced webhook secret valid for a while: calls are signed with both
-- until it expires. Only the immediately previous secret is kept, encrypted like the current one.
ALTER TABLE "webhook_secrets" ADD COLUMN "previous_secret_encrypted" TEXT,
ADD COLUMN "previous_expires_at" TIMESTAMPTZ(3);
