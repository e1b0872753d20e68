import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { z } from 'zod';
import { withGraphQLInputType } from '../../operations/graphql-args';
import { addressSchema, chainSchema, nonNegativeAmountSchema, positiveAmountSchema } from '../../validation';

const tokenId = addressSchema.describe('The credit token (its address)');
const amount = positiveAmountSchema.describe(
  'Amount in formatted units (> 0), converted exactly with the token’s decimals',
);

/** POST /credit/new, mutation createCreditToken. */
export const createCreditTokenSchema = z.object({
  chain: chainSchema,
  app_id: addressSchema
    .describe('The app (its contract address) the token belongs to; the caller must operate it')
    .openapi({ example: DEV_CHAIN_EXAMPLES.firstApp }),
  token_name: z.string().min(1).max(512).describe('1..512 characters'),
  token_symbol: z.string().min(1).max(512).describe('1..512 characters'),
  token_supply: nonNegativeAmountSchema.describe(
    'Initial supply in formatted units (>= 0), minted to the caller',
  ),
  // A uint8 on chain; Laurel's App allows at most 18 (more reverts with InvalidDecimals).
  token_decimals: z.number().int().min(0).max(18).describe('Decimals of the token, 0..18'),
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

const signatureWord = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'Invalid: expected 32 bytes as 0x-prefixed hex (64 hex digits)');

/** The holder's signature of permit-data's `hashToSign`, as ethers' `Signature` splits it. */
const signedPermitSchema = withGraphQLInputType(
  z
    .object({
      r: signatureWord.describe('The signature’s r: 0x + 64 hex digits'),
      s: signatureWord.describe('The signature’s s: 0x + 64 hex digits'),
      v: z.number().int().min(0).max(255).describe('The recovery id: 27 or 28 (0 or 1 are read as 27 or 28)'),
    })
    .describe('The holder’s signature of `hashToSign` from POST /credit/permit-data: {r, s, v}'),
  'SignedPermit',
  'A signature of a permit digest, split into r, s and v',
);

/** POST /credit/transfer, mutation transferCredit: the permit of POST /credit/permit-data, used. */
export const transferCreditSchema = z.object({
  chain: chainSchema,
  token_id: tokenId,
  holder_address: addressSchema.describe('The token holder, who signed the permit'),
  receiver_address: addressSchema.describe(
    'The permit’s spender, who receives the tokens: the caller’s own wallet, which sends the transaction and pays its gas',
  ),
  amount: amount.describe('The permitted amount in formatted units, as given to POST /credit/permit-data'),
  deadline: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .describe('The permit’s deadline from POST /credit/permit-data (seconds since the epoch), as signed'),
  signedPermit: signedPermitSchema,
});
export type TransferCreditInput = z.output<typeof transferCreditSchema>;

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
  app_id: addressSchema
    .describe('The app (its contract address)')
    .openapi({ example: DEV_CHAIN_EXAMPLES.firstApp }),
});
export type CreditTokensInput = z.output<typeof creditTokensSchema>;
