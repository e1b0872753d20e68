import { z } from 'zod';
import { addressSchema, chainSchema, digitsSchema } from '../../validation';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

/**
 * GET /leaderboard. `token_id` is accepted as an alias of `token_address` (clients of services with
 * this interface send it). `start`/`end` are seconds since the epoch, both inclusive.
 */
export const leaderboardSchema = z
  .object({
    chain: chainSchema,
    app_id: addressSchema.optional(),
    token_address: addressSchema.optional(),
    token_id: addressSchema.optional(),
    start: digitsSchema.optional(),
    end: digitsSchema.optional(),
    page: digitsSchema.optional(),
    page_size: digitsSchema.optional(),
  })
  .transform(({ token_id, token_address, start, end, page, page_size, ...rest }) => ({
    ...rest,
    token_address: token_address ?? token_id,
    start: start === undefined ? undefined : Number(start),
    end: end === undefined ? undefined : Number(end),
    page: Math.max(1, page === undefined ? 1 : Number(page)),
    page_size: Math.min(
      MAX_PAGE_SIZE,
      Math.max(1, page_size === undefined ? DEFAULT_PAGE_SIZE : Number(page_size)),
    ),
  }));
export type LeaderboardInput = z.output<typeof leaderboardSchema>;
