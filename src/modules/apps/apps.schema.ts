import { z } from 'zod';
import { chainSchema } from '../../validation';

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
