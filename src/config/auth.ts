import { z } from 'zod';
/** API keys and request budgets: key challenges, rate limits, keys per wallet. */
import { positiveInt, type Parsed } from './values';

/** The longest life a key may be given (a year): the schema's bound, which the setting may lower. */
export const API_KEY_LIFETIME_CEILING_SECONDS = 31_536_000;

export const authVariables = {
  API_KEY_CHALLENGE_TTL_SECONDS: positiveInt(600).describe('lifetime of a key challenge'),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60).describe("window of a wallet's request budget"),
  RATE_LIMIT_MAX_REQUESTS: positiveInt(600).describe(
    'requests per wallet (all its keys) and window, shared by all Laurel processes on one database',
  ),
  API_KEYS_PER_WALLET: positiveInt(20).describe('active (unrevoked) API keys a wallet may hold'),
  API_KEY_MAX_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .max(API_KEY_LIFETIME_CEILING_SECONDS)
    .default(API_KEY_LIFETIME_CEILING_SECONDS)
    .describe(
      'the most `expires_in_seconds` a key may be issued with at `/key/verify` (default and most: 365 days, as openapi.json says; a key without it never expires)',
    ),
  KEY_REQUESTS_PER_CLIENT: positiveInt(30).describe(
    '`/key/challenge` + `/key/verify` calls per minute from one client address',
  ),
  KEY_CHALLENGES_PER_WALLET: positiveInt(10).describe('challenges per minute for one wallet, whoever asks'),
  GRAPHQL_ANONYMOUS_REQUESTS_PER_CLIENT: positiveInt(60).describe(
    '`/graphql` requests per minute from one client address without a valid `X-API-KEY` (none, or a wrong one; introspection included), shared by all Laurel processes on one database; over it: 429 `RATE_LIMITED`',
  ),
  IDEMPOTENCY_KEY_TTL_HOURS: positiveInt(24).describe(
    'how long the answer to a request sent with an `Idempotency-Key` is given again to a retry with the same key and request',
  ),
  IDEMPOTENCY_KEY_MAX_LENGTH: positiveInt(255).describe(
    'the longest `Idempotency-Key` accepted (visible ASCII characters); a longer one is 400',
  ),
  IDEMPOTENCY_LOCK_SECONDS: positiveInt(120).describe(
    'how long a request with an `Idempotency-Key` holds its key while it runs (longer than any operation, `EXECUTE_WAIT_TIMEOUT_SECONDS` included); a retry meanwhile is 409, and a key whose process died is free again after it',
  ),
};

export interface AuthConfig {
  auth: {
    challengeTtlSeconds: number;
    /** Requests per window of a wallet, all its keys together (GraphQL: per root field). */
    rateLimit: { windowSeconds: number; maxRequests: number };
    /** Active (unrevoked) keys a wallet may hold. */
    keysPerWallet: number;
    /** The longest lifetime a key may be issued with. */
    maxKeyLifetimeSeconds: number;
    /** /key/challenge and /key/verify calls per minute from one client address. */
    keyRequestsPerClient: number;
    /** Challenges per minute for one wallet, whoever asks. */
    challengesPerWallet: number;
    /** GraphQL requests per minute from one client address without a valid key. */
    anonymousGraphqlPerClient: number;
    /** Idempotency-Key: how long answers are kept, the longest key, how long a running request holds its key. */
    idempotency: { ttlHours: number; keyMaxLength: number; lockSeconds: number };
  };
}

export function authConfig(e: Parsed<typeof authVariables>): AuthConfig {
  return {
    auth: {
      challengeTtlSeconds: e.API_KEY_CHALLENGE_TTL_SECONDS,
      rateLimit: { windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS, maxRequests: e.RATE_LIMIT_MAX_REQUESTS },
      keysPerWallet: e.API_KEYS_PER_WALLET,
      maxKeyLifetimeSeconds: e.API_KEY_MAX_LIFETIME_SECONDS,
      keyRequestsPerClient: e.KEY_REQUESTS_PER_CLIENT,
      challengesPerWallet: e.KEY_CHALLENGES_PER_WALLET,
      anonymousGraphqlPerClient: e.GRAPHQL_ANONYMOUS_REQUESTS_PER_CLIENT,
      idempotency: {
        ttlHours: e.IDEMPOTENCY_KEY_TTL_HOURS,
        keyMaxLength: e.IDEMPOTENCY_KEY_MAX_LENGTH,
        lockSeconds: e.IDEMPOTENCY_LOCK_SECONDS,
      },
    },
  };
}
