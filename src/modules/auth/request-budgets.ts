import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../config';
import { RateLimitedError } from '../../errors';

/** Rows of every limiter live in one table, keyed `<limiter>:<key>` (see the RateLimit model). */
const TABLE = 'rate_limits';

function limiter(
  pool: Pool,
  keyPrefix: string,
  points: number,
  durationSeconds: number,
): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: TABLE,
    tableCreated: true, // by Laurel's migrations
    clearExpiredByTimeout: false, // maintenance__prune deletes expired rows
    keyPrefix,
    points,
    duration: durationSeconds,
    // Once a key is over its budget, this process refuses it from memory until the window ends:
    // a flood of refused requests costs no database round trip.
    inMemoryBlockOnConsumed: points,
  });
}

/**
 * The request budgets, counted in PostgreSQL (rate-limiter-flexible's PostgreSQL store) so that
 * every Laurel process on the database shares them:
 * - a wallet's requests, all its API keys together (GraphQL: one per root field);
 * - key issuance (/key/challenge and /key/verify) per client address;
 * - challenges per wallet, whoever asks for them.
 * Over a budget: RateLimitedError (429 with Retry-After).
 */
export class RequestBudgets {
  private readonly wallets: RateLimiterPostgres;
  private readonly keyRequestsByClient: RateLimiterPostgres;
  private readonly challengesByWallet: RateLimiterPostgres;

  constructor(pool: Pool, auth: Config['auth']) {
    this.wallets = limiter(pool, 'wallet', auth.rateLimit.maxRequests, auth.rateLimit.windowSeconds);
    this.keyRequestsByClient = limiter(pool, 'key-client', auth.keyRequestsPerClient, 60);
    this.challengesByWallet = limiter(pool, 'challenge-wallet', auth.challengesPerWallet, 60);
  }

  /** Spends `cost` of the wallet's budget. */
  spendWallet(address: string, cost = 1): Promise<void> {
    return spend(this.wallets, address, cost);
  }

  /** Spends one of the client's key-issuance requests. */
  spendKeyRequest(clientAddress: string): Promise<void> {
    return spend(this.keyRequestsByClient, clientAddress, 1);
  }

  /** Spends one of the wallet's challenges. */
  spendChallenge(address: string): Promise<void> {
    return spend(this.challengesByWallet, address, 1);
  }
}

async function spend(limiter: RateLimiterPostgres, key: string, cost: number): Promise<void> {
  try {
    await limiter.consume(key, cost);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
    }
    throw rejection;
  }
}
