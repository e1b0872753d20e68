import { z } from 'zod';
import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { addressSchema, chainSchema } from '../../validation';

/** POST /app/new, mutation createApp. */
export const createAppSchema = z.object({
  chain: chainSchema,
  name: z.string().min(1).max(256).describe('The app name (1..256)').openapi({ example: 'My game' }),
});
export type CreateAppInput = z.output<typeof createAppSchema>;

/** GET /apps?chain=, query apps. */
export const listAppsSchema = z.object({
  chain: chainSchema,
});
export type ListAppsInput = z.output<typeof listAppsSchema>;

/** POST /app/operator/add and /app/operator/remove, mutations addOperator and removeOperator. */
export const appOperatorSchema = z.object({
  chain: chainSchema,
  app_id: addressSchema
    .describe('The app (its contract address); the caller must own it')
    .openapi({ example: DEV_CHAIN_EXAMPLES.firstApp }),
  operator_address: addressSchema
    .describe(
      'The operator wallet (an operator rewards and creates tokens and badges, never manages operators)',
    )
    .openapi({ example: DEV_CHAIN_EXAMPLES.user }),
});
export type AppOperatorInput = z.output<typeof appOperatorSchema>;
