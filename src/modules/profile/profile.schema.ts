import { z } from 'zod';
import { addressSchema, chainSchema } from '../../validation';

/** GET /profile: `user_id` defaults to the calling account. */
export const profileSchema = z.object({
  chain: chainSchema,
  user_id: addressSchema.optional(),
  app_id: addressSchema.optional(),
});
export type ProfileInput = z.output<typeof profileSchema>;
