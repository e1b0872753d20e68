/** Reads and GraphQL subscriptions: the read cache, push intervals, and subscriptions and sockets per key. */
import { z } from 'zod';
import { positiveInt, type Parsed } from './values';

export const readsVariables = {
  READ_CACHE_MB: z.coerce
    .number()
    .int()
    .min(0)
    .default(64)
    .describe(
      'memory of each API process for cached profiles, leaderboards and the per-day parts of leaderboard windows (an estimate of their size), dropped when their index rows change; `0`: no cache',
    ),
  SUBSCRIPTION_PUSH_INTERVAL_MS: positiveInt(1000).describe(
    'GraphQL subscriptions: the shortest time between two pushes of one `leaderboardChanged` or `profileChanged` subscription (changes within it are sent together, as the page or profile then is)',
  ),
  SUBSCRIPTIONS_PER_KEY: positiveInt(20).describe(
    'GraphQL subscriptions: how many an API key may hold open at once in one API process (over it, a new one is refused with `TOO_MANY_SUBSCRIPTIONS`)',
  ),
  WEBSOCKETS_PER_KEY: positiveInt(20).describe(
    'GraphQL subscriptions: WebSocket connections one API key may hold open at once in one API process, within `HTTP_MAX_CONNECTIONS` (over it, a new one is closed with 4429)',
  ),
  WEBSOCKET_PING_INTERVAL_MS: positiveInt(12_000).describe(
    'GraphQL subscriptions: every WebSocket is pinged this often; one that has not answered the previous ping by then is cut',
  ),
  WEBSOCKET_INIT_TIMEOUT_MS: positiveInt(3_000).describe(
    'GraphQL subscriptions: a WebSocket must send `connection_init` within this (else it is closed with 4408)',
  ),
};

export interface ReadsConfig {
  /** Bytes of profiles and leaderboards kept in memory until their chain's index changes (0: none). */
  readCacheBytes: number;
  subscriptions: {
    /** Shortest time between two pushes of one leaderboard or profile subscription. */
    pushIntervalMs: number;
    /** Subscriptions one API key may hold open at once in one process. */
    perKey: number;
    /** WebSocket connections one API key may hold open at once in one process. */
    socketsPerKey: number;
    /** How often every WebSocket is pinged; one that did not answer the previous ping is cut. */
    pingIntervalMs: number;
    /** How long a WebSocket has to send connection_init. */
    initTimeoutMs: number;
  };
}

export function readsConfig(e: Parsed<typeof readsVariables>): ReadsConfig {
  return {
    readCacheBytes: e.READ_CACHE_MB * 1024 * 1024,
    subscriptions: {
      pushIntervalMs: e.SUBSCRIPTION_PUSH_INTERVAL_MS,
      perKey: e.SUBSCRIPTIONS_PER_KEY,
      socketsPerKey: e.WEBSOCKETS_PER_KEY,
      pingIntervalMs: e.WEBSOCKET_PING_INTERVAL_MS,
      initTimeoutMs: e.WEBSOCKET_INIT_TIMEOUT_MS,
    },
  };
}
