import { z } from 'zod';
import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { addressSchema, chainSchema, exactlyOneOf, positiveAmountSchema } from '../../validation';

/**
 * An action id: 1..32 characters that fit the contracts' bytes32 (at most 32 UTF-8 bytes, no NUL
 * character), e.g. `"daily-login"`.
 */
export const actionIdSchema = z
  .string()
  .min(1)
  .max(32)
  .superRefine((value, ctx) => {
    if (value.length > 32) return; // already reported by max(32)
    if (Buffer.byteLength(value, 'utf8') > 32) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'action_id must be at most 32 bytes in UTF-8' });
    }
    if (value.includes('\0')) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'action_id must not contain NUL characters' });
    }
  })
  .openapi({ pattern: '^[^\\u0000]*$' });

const rewardBase = {
  chain: chainSchema,
  action_id: actionIdSchema
    .describe('The action rewarded (1..32 characters, at most 32 UTF-8 bytes)')
    .openapi({ example: 'daily-login' }),
  receiver: addressSchema.describe('The user rewarded').openapi({ example: DEV_CHAIN_EXAMPLES.user }),
  app_id: addressSchema
    .describe('The app (App contract address); the caller must operate it')
    .openapi({ example: DEV_CHAIN_EXAMPLES.firstApp }),
};

/** ERC-20 reward amounts: formatted units, converted exactly with the token's decimals. */
const tokenAmount = positiveAmountSchema.describe('Amount in formatted units (> 0)');

/** POST /reward/badge, mutation rewardBadge. */
export const rewardBadgeSchema = exactlyOneOf(
  z.object({
    ...rewardBase,
    amount: z.number().int().min(1).describe('Number of badges (>= 1), one ERC-721 token each'),
    badge_name: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe('The badge, by name within the app (or badge_id)'),
    badge_id: addressSchema.optional().describe('The badge contract address (or badge_name)'),
    base_uri: z
      .string()
      .max(512)
      .optional()
      .describe("URI of the new tokens (max 512); absent: the badge's base URI + token id"),
  }),
  ['badge_name', 'badge_id'],
);
export type RewardBadgeInput = z.output<typeof rewardBadgeSchema>;

/** POST /reward/credit, mutation rewardCredit. */
export const rewardCreditSchema = z.object({
  ...rewardBase,
  token_address: addressSchema.describe('The credit token'),
  amount: tokenAmount,
  mint: z
    .boolean()
    .optional()
    .default(false)
    .describe("false (default): transfer the sender's tokens (needs an allowance for the app); true: mint"),
});
export type RewardCreditInput = z.output<typeof rewardCreditSchema>;

/** POST /reward/point, mutation rewardPoint. */
export const rewardPointSchema = z.object({
  ...rewardBase,
  token_address: addressSchema.describe('The point token'),
  amount: tokenAmount,
});
export type RewardPointInput = z.output<typeof rewardPointSchema>;

/** POST /reward/XP, mutation rewardXP. */
export const rewardXPSchema = z.object({
  ...rewardBase,
  amount: positiveAmountSchema.describe('XP in formatted units (> 0; XP has 18 decimals)'),
});
export type RewardXPInput = z.output<typeof rewardXPSchema>;
