import { z } from 'zod';
import { addressSchema, chainSchema, positiveAmountSchema } from '../../validation';

/** Amounts are formatted (decimal-adjusted) numbers, converted exactly with the token's decimals. */

/** POST /credit/new */
export const createCreditTokenSchema = z.object({
  chain: chainSchema,
  app_id: addressSchema,
  token_name: z.string().min(1).max(512),
  token_symbol: z.string().min(1).max(512),
  /** Initial supply, minted to the caller, in formatted units of `token_decimals`. */
  token_supply: z.number().min(0),
  /** A uint8 on chain; Laurel's App allows at most 18 (more reverts with InvalidDecimals). */
  token_decimals: z.number().int().min(0).max(255),
  token_is_point: z.boolean(),
});
export type CreateCreditTokenInput = z.output<typeof createCreditTokenSchema>;

/** POST /credit/approve */
export const approveCreditSchema = z.object({
  chain: chainSchema,
  token_id: addressSchema,
  holder_address: addressSchema,
  spender_address: addressSchema,
  amount: positiveAmountSchema,
});
export type ApproveCreditInput = z.output<typeof approveCreditSchema>;

/** POST /credit/permit-data */
export const creditPermitDataSchema = z.object({
  chain: chainSchema,
  token_id: addressSchema,
  holder_address: addressSchema,
  receiver_address: addressSchema,
  amount: positiveAmountSchema,
});
export type CreditPermitDataInput = z.output<typeof creditPermitDataSchema>;

/** POST /credit/balance */
export const creditBalanceSchema = z.object({
  chain: chainSchema,
  token_id: addressSchema,
  user_id: addressSchema,
});
export type CreditBalanceInput = z.output<typeof creditBalanceSchema>;

/** GET /credit/tokens?chain=&app_id= */
export const creditTokensSchema = z.object({
  chain: chainSchema,
  app_id: addressSchema,
});
export type CreditTokensInput = z.output<typeof creditTokensSchema>;
