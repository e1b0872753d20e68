import { DEV_CHAIN_EXAMPLES } from '../../chain/deploy';
import { z } from 'zod';
import { addressSchema, chainSchema, digitsSchema } from '../../validation';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 1_000_000_000;

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
    page: digitsSchema('a page number from 1', '2').describe('Page, from 1 (default 1)').optional(),
    page_size: digitsSchema('a number of entries', '10')
      .describe(`Entries per page (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE})`)
      .optional(),
  })
  .transform(({ token_id, token_address, start, end, page, page_size, ...rest }) => ({
    ...rest,
    token_address: token_address ?? token_id,
    start: start === undefined ? undefined : Number(start),
    end: end === undefined ? undefined : Number(end),
    // Pages past a billion are empty anyway; the cap keeps OFFSET an exact integer.
    page: Math.min(MAX_PAGE, Math.max(1, page === undefined ? 1 : Number(page))),
    page_size: Math.min(
      MAX_PAGE_SIZE,
      Math.max(1, page_size === undefined ? DEFAULT_PAGE_SIZE : Number(page_size)),
    ),
  }));
export type LeaderboardInput = z.output<typeof leaderboardSchema>;
