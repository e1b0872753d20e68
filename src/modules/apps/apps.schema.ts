import { z } from 'zod';
import { addressSchema, chainSchema } from '../../validation';

/** POST /app/new */
export const createAppSchema = z.object({
  chain: chainSchema,
  name: z.string().min(1).max(256),
});
export type CreateAppInput = z.output<typeof createAppSchema>;

/** GET /apps?chain= */
export const listAppsSchema = z.object({
  chain: chainSchema,
});
export type ListAppsInput = z.output<typeof listAppsSchema>;

/** An app id: the App contract's address. */
export const appIdSchema = addressSchema;
