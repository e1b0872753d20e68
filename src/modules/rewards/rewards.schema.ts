import { z } from 'zod';
import { addressSchema, chainSchema, positiveAmountSchema } from '../../validation';

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
  });

/** Amounts of ERC-20 rewards: formatted units (decimal-adjusted), converted exactly with the token's decimals. */

const rewardBase = {
  chain: chainSchema,
  action_id: actionIdSchema,
  /** The user rewarded. */
  receiver: addressSchema,
  /** The app (App contract address). */
  app_id: addressSchema,
};

/** POST /reward/badge */
export const rewardBadgeSchema = z
  .object({
    ...rewardBase,
    /** Number of badges (one ERC-721 token each). */
    amount: z.number().int().min(1),
    badge_name: z.string().min(1).max(256).optional(),
    badge_id: addressSchema.optional(),
    /** URI of the new tokens (each token's own URI); absent: the badge's base URI + token id. */
    base_uri: z.string().max(512).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.badge_name === undefined && value.badge_id === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['badge_name'],
        message: 'Give badge_name or badge_id',
      });
    } else if (value.badge_name !== undefined && value.badge_id !== undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['badge_id'],
        message: 'Give badge_name or badge_id, not both',
      });
    }
  });
export type RewardBadgeInput = z.output<typeof rewardBadgeSchema>;

/** POST /reward/credit */
export const rewardCreditSchema = z.object({
  ...rewardBase,
  token_address: addressSchema,
  amount: positiveAmountSchema,
  /** false: transfer the sender's tokens (App.transferERC20, needs an allowance for the app); true: mint. */
  mint: z.boolean().optional().default(false),
});
export type RewardCreditInput = z.output<typeof rewardCreditSchema>;

/** POST /reward/point */
export const rewardPointSchema = z.object({
  ...rewardBase,
  token_address: addressSchema,
  amount: positiveAmountSchema,
});
export type RewardPointInput = z.output<typeof rewardPointSchema>;

/** POST /reward/XP (XP tokens have 18 decimals) */
export const rewardXPSchema = z.object({
  ...rewardBase,
  amount: positiveAmountSchema,
});
export type RewardXPInput = z.output<typeof rewardXPSchema>;
