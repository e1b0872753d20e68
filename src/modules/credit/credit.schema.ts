import { z } from 'zod';
import { addressSchema, chainSchema, nonNegativeAmountSchema, positiveAmountSchema } from '../../validation';

const tokenId = addressSchema.describe('The credit token (its address)');
const amount = positiveAmountSchema.describe(
  'Amount in formatted units (> 0), converted exactly with the token’s decimals',
);

/** POST /credit/new, mutation createCreditToken. */
export const createCreditTokenSchema = z.object({
  chain: chainSchema,
  app_id: addressSchema.describe(
    'The app (its contract address) the token belongs to; the caller must operate it',
  ),
  token_name: z.string().min(1).max(512).describe('1..512 characters'),
  token_symbol: z.string().min(1).max(512).describe('1..512 characters'),
  token_supply: nonNegativeAmountSchema.describe(
    'Initial supply in formatted units (>= 0), minted to the caller',
  ),
  // A uint8 on chain; Laurel's App allows at most 18 (more reverts with InvalidDecimals).
  token_decimals: z
    .number()
    .int()
    .min(0)
    .max(255)
    .describe('Decimals of the token (0..18 on Laurel contracts)'),
  token_is_point: z.boolean().describe('True for a non-transferable point token'),
});
export type CreateCreditTokenInput = z.output<typeof createCreditTokenSchema>;

/** POST /credit/approve, mutation approveCredit. */
export const approveCreditSchema = z.object({
  chain: chainSchema,
  token_id: tokenId,
  holder_address: addressSchema.describe(
    'The token holder: the caller’s own wallet, which signs the approval',
  ),
  spender_address: addressSchema.describe('Who may then transfer up to `amount` from the holder'),
  amount,
});
export type ApproveCreditInput = z.output<typeof approveCreditSchema>;

/** POST /credit/permit-data, query creditPermitData. */
export const creditPermitDataSchema = z.object({
  chain: chainSchema,
  token_id: tokenId,
  holder_address: addressSchema.describe('The token holder, who signs `hashToSign`'),
  receiver_address: addressSchema.describe('The spender the permit allows'),
  amount,
});
export type CreditPermitDataInput = z.output<typeof creditPermitDataSchema>;

/** POST /credit/balance, query creditBalance. */
export const creditBalanceSchema = z.object({
  chain: chainSchema,
  token_id: tokenId,
  user_id: addressSchema.describe('The holder whose balance is read'),
});
export type CreditBalanceInput = z.output<typeof creditBalanceSchema>;

/** GET /credit/tokens?chain=&app_id=, query creditTokens. */
export const creditTokensSchema = z.object({
  chain: chainSchema,
  app_id: addressSchema.describe('The app (its contract address)'),
});
export type CreditTokensInput = z.output<typeof creditTokensSchema>;
