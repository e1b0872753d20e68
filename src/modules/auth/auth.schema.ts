import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { API_KEY_LIFETIME_CEILING_SECONDS } from '../../config/auth';
import { ID } from 'type-graphql';
import { z } from 'zod';
import { withGraphQLType } from '../../operations/graphql-args';
import { addressSchema } from '../../validation';

/**
 * A signature as hex, 0x-prefixed or not (normalised to 0x). A 65-byte signature is 132
 * characters; the bound only keeps absurd input out: a malformed signature of sane length is a
 * failed verification (401), not a validation error.
 */
export const signatureSchema = z
  .string()
  .max(256)
  .regex(/^(0x)?[0-9a-fA-F]+$/, 'Invalid hex string')
  .transform((value) => (value.startsWith('0x') ? value : `0x${value}`))
  .describe('The wallet’s EIP-191 (personal_sign) signature of the challenge, hex');

/** POST /key/challenge, mutation requestApiKeyChallenge. */
export const requestChallengeSchema = z.object({
  public_address: addressSchema
    .describe('Wallet address (0x optional, any case)')
    .openapi({ example: DEV_CHAIN_EXAMPLES.user }),
});
export type RequestChallengeInput = z.output<typeof requestChallengeSchema>;

/** POST /key/verify, mutation verifyApiKeyChallenge. */
export const verifyChallengeSchema = z.object({
  signature: signatureSchema,
  public_address: addressSchema
    .describe('The wallet address the challenge was issued for')
    .openapi({ example: DEV_CHAIN_EXAMPLES.user }),
  scope: z
    .enum(['full', 'read'])
    .optional()
    .describe(
      'What the key may run (default `full`: everything). `read`: only the reads (profiles, leaderboards, balances, tokens, badges, apps, chains, transaction status and listing, subscriptions, the key list); anything else answers 403. A key for a browser page.',
    ),
  expires_in_seconds: z
    .number()
    .int()
    .positive()
    .max(
      API_KEY_LIFETIME_CEILING_SECONDS,
      `A key lives at most ${API_KEY_LIFETIME_CEILING_SECONDS} seconds (API_KEY_MAX_LIFETIME_SECONDS)`,
    )
    .optional()
    .describe(
      'Seconds until the key expires, 1..API_KEY_MAX_LIFETIME_SECONDS (default: never). An expired key answers 401 `API key expired`.',
    ),
});
export type VerifyChallengeInput = z.output<typeof verifyChallengeSchema>;

/** GET /v1/keys, query apiKeys. */
export const listApiKeysSchema = z.object({});

/** DELETE /v1/keys/:id, mutation revokeApiKey. */
export const revokeApiKeySchema = z.object({
  id: withGraphQLType(z.string().uuid().describe('The key’s id (from GET /v1/keys)'), ID),
});
export type RevokeApiKeyInput = z.output<typeof revokeApiKeySchema>;
