-- Sign-In with Ethereum (EIP-4361): a challenge names the domain the request came to, and is
-- verified only through that domain. Challenges made before this name none and can no longer be
-- verified (they expire within API_KEY_CHALLENGE_TTL_SECONDS anyway).
ALTER TABLE "api_key_challenges" ADD COLUMN "domain" VARCHAR(255);

-- A wallet's open challenges for a domain: at most two, the one handed out and the one it replaced.
CREATE INDEX "api_key_challenges_address_domain_id_idx" ON "api_key_challenges"("address", "domain", "id");
