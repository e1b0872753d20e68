/** API keys and request budgets: key challenges, rate limits, keys per wallet. */
import { positiveInt, type Parsed } from './values';

export const authVariables = {
  API_KEY_CHALLENGE_TTL_SECONDS: positiveInt(600).describe('lifetime of a key challenge'),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60).describe("window of a wallet's request budget"),
  RATE_LIMIT_MAX_REQUESTS: positiveInt(600).describe(
    'requests per wallet (all its keys) and window, shared by all Laurel processes on one database',
  ),
  API_KEYS_PER_WALLET: positiveInt(20).describe('active (unrevoked) API keys a wallet may hold'),
  API_KEY_MAX_LIFETIME_SECONDS: positiveInt(31_536_000).describe(
    'the most `expires_in_seconds` a key may be issued with at `/key/verify` (default 365 days; a key without it never expires)',
  ),
  KEY_REQUESTS_PER_CLIENT: positiveInt(30).describe(
    '`/key/challenge` + `/key/verify` calls per minute from one client address',
  ),
  KEY_CHALLENGES_PER_WALLET: positiveInt(10).describe('challenges per minute for one wallet, whoever asks'),
  GRAPHQL_ANONYMOUS_REQUESTS_PER_CLIENT: positiveInt(60).describe(
    '`/graphql` requests per minute from one client address without a valid `X-API-KEY` (none, or a wrong one; introspection included), shared by all Laurel processes on one database; over it: 429 `RATE_LIMITED`',
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
    },
  };
}
