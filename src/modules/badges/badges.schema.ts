import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { z } from 'zod';
import { addressSchema, chainSchema } from '../../validation';

const appId = addressSchema
  .describe('The app (App contract address)')
  .openapi({ example: DEV_CHAIN_EXAMPLES.firstApp });

/** POST /badge/new, mutation createBadge. */
export const createBadgeSchema = z.object({
  chain: chainSchema,
  app_id: appId,
  badge_name: z.string().min(1).max(256).describe('The badge name (1..256)'),
  base_uri: z
    .string()
    .max(512)
    .optional()
    .describe("Base URI of the badge's token URIs (token URI = base URI + token id; max 512)"),
});
export type CreateBadgeInput = z.output<typeof createBadgeSchema>;

/** GET /badges?chain=&app_id=, query badges. */
export const listBadgesSchema = z.object({
  chain: chainSchema,
  app_id: appId,
});
export type ListBadgesInput = z.output<typeof listBadgesSchema>;
