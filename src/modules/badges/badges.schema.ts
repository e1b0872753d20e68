import { z } from 'zod';
import { addressSchema, chainSchema } from '../../validation';

/** POST /badge/new */
export const createBadgeSchema = z.object({
  chain: chainSchema,
  app_id: addressSchema,
  badge_name: z.string().min(1).max(256),
  /** Base URI of the badge's token URIs (token URI = base URI + token id). */
  base_uri: z.string().max(512).optional(),
});
export type CreateBadgeInput = z.output<typeof createBadgeSchema>;

/** GET /badges?chain=&app_id= */
export const listBadgesSchema = z.object({
  chain: chainSchema,
  app_id: addressSchema,
});
export type ListBadgesInput = z.output<typeof listBadgesSchema>;
