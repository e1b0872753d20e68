import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { z } from 'zod';
import { addressSchema, chainSchema } from '../../validation';

/** GET /profile: `user_id` defaults to the calling account. */
export const profileSchema = z.object({
  chain: chainSchema,
  user_id: addressSchema.describe('The user (default: the calling account)').optional(),
  app_id: addressSchema
    .describe("Only this app's XP, badges and actions, plus its credit and point balances")
    .openapi({ example: DEV_CHAIN_EXAMPLES.firstApp })
    .optional(),
});
export type ProfileInput = z.output<typeof profileSchema>;
