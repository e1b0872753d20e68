import { z } from 'zod';
import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { withGraphQLInputTypeOf } from '../../operations/graphql-args';
import {
  addressSchema,
  chainSchema,
  DecimalInput,
  exactlyOneOf,
  exactlyOneOfOpenApi,
  exactlyOneOfRule,
  positiveAmountSchema,
} from '../../validation';

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

/** Who is rewarded, for what: the fields of every reward, single or an item of a batch. */
const rewardFields = {
  action_id: actionIdSchema
    .describe('The action rewarded (1..32 characters, at most 32 UTF-8 bytes)')
    .openapi({ example: 'daily-login' }),
  receiver: addressSchema.describe('The user rewarded').openapi({ example: DEV_CHAIN_EXAMPLES.user }),
};

const appIdField = addressSchema
  .describe('The app (App contract address); the caller must operate it')
  .openapi({ example: DEV_CHAIN_EXAMPLES.firstApp });

const rewardBase = { chain: chainSchema, ...rewardFields, app_id: appIdField };

/** ERC-20 reward amounts: formatted units, converted exactly with the token's decimals. */
const tokenAmount = positiveAmountSchema.describe('Amount in formatted units (> 0)');

const BADGE_BY: [string, string] = ['badge_name', 'badge_id'];

const badgeFields = {
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
};

const creditFields = {
  token_address: addressSchema.describe('The credit token'),
  amount: tokenAmount,
  mint: z
    .boolean()
    .optional()
    .default(false)
    .describe("false (default): transfer the sender's tokens (needs an allowance for the app); true: mint"),
};

const pointFields = {
  token_address: addressSchema.describe('The point token'),
  amount: tokenAmount,
};

const xpFields = {
  amount: positiveAmountSchema.describe('XP in formatted units (> 0; XP has 18 decimals)'),
};

/** POST /reward/badge, mutation rewardBadge. */
export const rewardBadgeSchema = exactlyOneOf(z.object({ ...rewardBase, ...badgeFields }), BADGE_BY);
export type RewardBadgeInput = z.output<typeof rewardBadgeSchema>;

/** POST /reward/credit, mutation rewardCredit. */
export const rewardCreditSchema = z.object({ ...rewardBase, ...creditFields });
export type RewardCreditInput = z.output<typeof rewardCreditSchema>;

/** POST /reward/point, mutation rewardPoint. */
export const rewardPointSchema = z.object({ ...rewardBase, ...pointFields });
export type RewardPointInput = z.output<typeof rewardPointSchema>;

/** POST /reward/XP, mutation rewardXP. */
export const rewardXPSchema = z.object({ ...rewardBase, ...xpFields });
export type RewardXPInput = z.output<typeof rewardXPSchema>;

/** The kinds of a batch item, each validated as its single endpoint validates it. */
export const REWARD_KINDS = ['xp', 'badge', 'credit', 'point'] as const;
export type RewardKindName = (typeof REWARD_KINDS)[number];

const kind = <K extends RewardKindName>(name: K, endpoint: string) =>
  z.literal(name).describe(`${name}: the fields of ${endpoint}, without chain and app_id`);

/**
 * GraphQL reads a batch's badge amount as a Decimal (the items share one input type, whose
 * amount is the tokens' Decimal); REST's JSON never gives a DecimalInput, so it is refused as
 * the single endpoint refuses it.
 */
const badgeCount = z.preprocess(
  (value) => (value instanceof DecimalInput ? Number(value.text) : value),
  badgeFields.amount,
);

/** One reward of a batch: `kind` and the fields of its single endpoint, without chain and app_id. */
const rewardBatchItemSchema = withGraphQLInputTypeOf(
  z
    .discriminatedUnion('kind', [
      z.object({ kind: kind('xp', 'POST /reward/XP'), ...rewardFields, ...xpFields }),
      z
        .object({
          kind: kind('badge', 'POST /reward/badge'),
          ...rewardFields,
          ...badgeFields,
          amount: badgeCount,
        })
        .openapi(exactlyOneOfOpenApi(BADGE_BY)),
      z.object({ kind: kind('credit', 'POST /reward/credit'), ...rewardFields, ...creditFields }),
      z.object({ kind: kind('point', 'POST /reward/point'), ...rewardFields, ...pointFields }),
    ])
    .superRefine((item, ctx) => {
      if (item.kind === 'badge') exactlyOneOfRule(BADGE_BY)(item, ctx);
    })
    .openapi('RewardBatchItem'),
  z.object({
    kind: z.enum(REWARD_KINDS).describe('xp, badge, credit or point'),
    ...rewardFields,
    amount: tokenAmount.describe('XP or token amount in formatted units, or the number of badges'),
    badge_name: badgeFields.badge_name,
    badge_id: badgeFields.badge_id,
    base_uri: badgeFields.base_uri,
    token_address: addressSchema.optional().describe('credit and point: the token'),
    mint: z
      .boolean()
      .optional()
      .describe('credit: true mints, false (default) transfers the sender’s tokens'),
  }),
  'RewardBatchItem',
  'One reward of a batch: kind and the fields of its single mutation (rewardXP, rewardBadge, rewardCredit, rewardPoint), without chain and app_id',
);
export type RewardBatchItem = z.output<typeof rewardBatchItemSchema>;

/** POST /reward/batch, mutation rewardBatch. */
export const rewardBatchSchema = z.object({
  chain: chainSchema,
  app_id: appIdField,
  items: z
    .array(rewardBatchItemSchema)
    .min(1)
    .describe(
      'The rewards, made in this order in one transaction, all or none; at most REWARD_BATCH_MAX_ITEMS (default 200). An invalid item is named by its index (path items.<index>.<field>)',
    ),
});
export type RewardBatchInput = z.output<typeof rewardBatchSchema>;
