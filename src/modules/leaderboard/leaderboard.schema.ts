import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { z } from 'zod';
import { addressSchema, chainSchema, digitsSchema, pageOf, pagingFields } from '../../validation';

export const DEFAULT_PAGE_SIZE = 10;

/**
 * GET /leaderboard. `token_id` is accepted as an alias of `token_address` (clients of services with
 * this interface send it). `start`/`end` are seconds since the epoch, both inclusive.
 */
export const leaderboardSchema = z
  .object({
    chain: chainSchema,
    app_id: addressSchema
      .describe("Rank this app's rewards (default token: its XP token)")
      .openapi({ example: DEV_CHAIN_EXAMPLES.firstApp })
      .optional(),
    token_address: addressSchema
      .describe('Rank rewards of this token (default: the app XP token; without app_id, XP of every app)')
      .optional(),
    token_id: addressSchema.describe('Alias of token_address').optional(),
    start: digitsSchema('seconds since the epoch', '1767225600')
      .describe('Window start, seconds since the epoch, inclusive')
      .optional(),
    end: digitsSchema('seconds since the epoch', '1767311999')
      .describe('Window end, seconds since the epoch, inclusive')
      .optional(),
    ...pagingFields(DEFAULT_PAGE_SIZE),
  })
  .transform(({ token_id, token_address, start, end, page, page_size, ...rest }) => {
    const paged = pageOf({ page, page_size }, DEFAULT_PAGE_SIZE);
    return {
      ...rest,
      token_address: token_address ?? token_id,
      start: start === undefined ? undefined : Number(start),
      end: end === undefined ? undefined : Number(end),
      page: paged.page,
      page_size: paged.pageSize,
    };
  });
export type LeaderboardInput = z.output<typeof leaderboardSchema>;
