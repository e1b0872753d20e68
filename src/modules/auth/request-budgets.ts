import { hash } from 'node:crypto';
import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../config';
import { databaseRefusesWrites, isDatabaseUnavailable } from '../../db/availability';
import { RateLimitedError, type DocumentedFailure, type RequestBudget } from '../../errors';
import { ThrottledLog, type Logger } from '../../logger';

/** Over the wallet's budget: what every {base_url} request may answer. */
export const WALLET_BUDGET_SPENT: DocumentedFailure = {
  status: 429,
  codes: ['rate_limited'],
  description:
    'The wallet’s request budget is spent (RATE_LIMIT_MAX_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, all its keys together): retry after `Retry-After` seconds',
};

/** Over a key-issuing budget: what /key/challenge and /key/verify may answer. */
export const KEY_REQUEST_BUDGET_SPENT: DocumentedFailure = {
  status: 429,
  codes: ['rate_limited'],
  description:
    'Over KEY_REQUESTS_PER_CLIENT key requests a minute from this client (or KEY_CHALLENGES_PER_WALLET challenges a minute for this wallet): retry after `Retry-After` seconds',
};

/** Rows of every limiter live in one table, keyed `<limiter>:<key>` (see the RateLimit model). */
const TABLE = 'rate_limits';

/** How often a process adds the wallet requests it counted in memory to the shared count. */
export const WALLET_BUDGET_SYNC_INTERVAL_MS = 100;
/**
 * The part of what is left of a wallet's budget (as last read from PostgreSQL) that a process may
 * let through before its count reaches PostgreSQL. Once less than 1/LOCAL_SHARE points are left,
 * every request asks PostgreSQL, exactly as a budget counted only there.
 */
export const WALLET_BUDGET_LOCAL_SHARE = 1 / 16;
/** How much later than the known one a window's end must be to be another window (windows last >= 1 s). */
const NEW_WINDOW_MIN_MS = 500;
/** A wallet the process has not seen for this long is forgotten (its next request asks PostgreSQL). */
const IDLE_WALLET_MS = 5_000;

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

/** What a process knows of one wallet's window. */
interface WalletWindow {
  /** Points of the window in PostgreSQL at the last look (everyone's, this process's included). */
  known: number;
  /** When the window ends (ms since the epoch), as PostgreSQL says. */
  endsAt: number;
  /** Points let through here and not yet sent to PostgreSQL. */
  pending: number;
  /** Points sent to PostgreSQL whose answer has not come back. */
  inFlight: number;
  lastUsedAt: number;
}

/**
 * A wallet's request budget counted in this process's memory first and in PostgreSQL soon after,
 * so that a request within budget costs no database round trip:
 * - a request is let through from memory while the points this process holds uncounted stay
 *   within WALLET_BUDGET_LOCAL_SHARE of what was left of the budget at its last look; those points
 *   go to PostgreSQL within WALLET_BUDGET_SYNC_INTERVAL_MS, every wallet in one statement, and the
 *   answer (the shared total) is the next look;
 * - otherwise (near the end of the budget, a wallet not seen lately, a new window) the request is
 *   counted in PostgreSQL before it goes on, with what this process held, through
 *   rate-limiter-flexible, which decides and answers Retry-After as it always did.
 * Within one process the budget is exact. Across N processes on one database a wallet can get at
 * most what the other processes let through from memory before their counts arrived: never more
 * than (N − 1) × 1/16 of its budget, and only when its requests are spread over processes within
 * the same 100 ms.
 */
export class LocallyCountedBudget {
  private readonly windows = new Map<string, WalletWindow>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private readonly faults: ThrottledLog;
  /**
   * While the database refuses writes (read-only, a full disk), requests are counted here, per
   * process, against the same budget: reads go on, and a wallet still meets its limit.
   */
  private readonly whileRefused: RateLimiterMemory;

  constructor(
    private readonly pool: Pool,
    private readonly limiter: RateLimiterPostgres,
    /** Named in its refusals (and the rate-limited metric). */
    private readonly budget: RequestBudget,
    log: Logger,
  ) {
    this.faults = new ThrottledLog(log);
    this.whileRefused = new RateLimiterMemory({ points: limiter.points, duration: limiter.duration });
    this.timer = setInterval(() => void this.flush(), WALLET_BUDGET_SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  async spend(key: string, cost: number): Promise<void> {
    const now = Date.now();
    const window = this.windows.get(key);
    if (window && now < window.endsAt) {
      window.lastUsedAt = now;
      const allowance = (this.limiter.points - window.known) * WALLET_BUDGET_LOCAL_SHARE;
      if (window.pending + window.inFlight + cost <= allowance) {
        window.pending += cost;
        return;
      }
    }
    // Counted in PostgreSQL now, together with what this process let through since its last look.
    const carried = window?.pending ?? 0;
    if (window) {
      window.pending = 0;
      window.inFlight += carried + cost;
    }
    try {
      const res = await this.limiter.consume(key, carried + cost);
      this.learn(key, res.consumedPoints, Date.now() + res.msBeforeNext, carried + cost);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        // Refused: the budget is spent (a refusal from the limiter's memory says 0 points).
        const spent = Math.max(rejection.consumedPoints, this.limiter.points);
        this.learn(key, spent, Date.now() + rejection.msBeforeNext, carried + cost);
        throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), this.budget);
      }
      // Not counted (database unavailable): what was let through before is sent with the next try.
      if (window) {
        window.inFlight -= carried + cost;
        window.pending += carried;
      }
      if (!databaseRefusesWrites(rejection)) throw rejection;
      await spend(this.whileRefused, key, cost, this.budget);
    }
  }

  /** Sends every wallet's uncounted points to PostgreSQL (one statement); forgets idle wallets. */
  flush(): Promise<void> {
    this.flushing ??= this.sendPending().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Stops the periodic flush and sends what is left. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  private async sendPending(): Promise<void> {
    const now = Date.now();
    const sent = new Map<string, number>();
    for (const [key, window] of this.windows) {
      if (window.pending > 0) {
        sent.set(key, window.pending);
        window.inFlight += window.pending;
        window.pending = 0;
      } else if (
        window.inFlight === 0 &&
        (window.endsAt <= now || now - window.lastUsedAt > IDLE_WALLET_MS)
      ) {
        this.windows.delete(key);
      }
    }
    if (sent.size === 0) return;
    try {
      await this.send(sent);
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        this.keepForLater(sent);
        this.faults.write(
          'warn',
          'request_budget_flush',
          { err: error },
          'request budgets: could not send counts to the database; retrying',
        );
        return;
      }
      // A row PostgreSQL refuses fails the whole statement: each row then goes on its own, so
      // one row never holds back the others' counts. A row refused alone is dropped and its
      // window forgotten (its next request is counted by the limiter itself).
      for (const [key, points] of sent) {
        try {
          await this.send(new Map([[key, points]]));
        } catch (rowError) {
          if (isDatabaseUnavailable(rowError)) {
            this.keepForLater(new Map([[key, points]]));
            continue;
          }
          this.windows.delete(key);
          this.faults.write(
            'warn',
            'request_budget_row',
            { err: rowError, budget: this.budget, points },
            'request budgets: the database refused one count; dropped it',
          );
        }
      }
    }
  }

  /** Adds the points to the stored windows (one statement) and learns each one's total. */
  private async send(sent: Map<string, number>): Promise<void> {
    const now = Date.now();
    const keys = [...sent.keys()];
    // rate-limiter-flexible's own upsert (a fixed window: an ended window starts afresh), for many keys.
    const { rows } = await this.pool.query<{ key: string; points: number; expire: string | null }>({
      name: 'laurel-budget-flush',
      text: `INSERT INTO ${TABLE} AS r (key, points, expire)
             SELECT k, p, $3::bigint FROM unnest($1::varchar[], $2::int[]) AS t(k, p)
             ON CONFLICT (key) DO UPDATE SET
               points = CASE WHEN r.expire <= $4 THEN EXCLUDED.points ELSE r.points + EXCLUDED.points END,
               expire = CASE WHEN r.expire <= $4 THEN EXCLUDED.expire ELSE r.expire END
             RETURNING key, points, expire`,
      values: [
        keys.map((key) => this.limiter.getKey(key)),
        keys.map((key) => sent.get(key)),
        now + this.limiter.duration * 1000,
        now,
      ],
    });
    const byStoreKey = new Map(keys.map((key) => [this.limiter.getKey(key), key]));
    for (const row of rows) {
      const key = byStoreKey.get(row.key)!;
      const endsAt = row.expire === null ? Number.POSITIVE_INFINITY : Number(row.expire);
      this.learn(key, row.points, endsAt, sent.get(key)!);
    }
  }

  /** Points not counted (the database is away): sent with the next flush, never dropped, only late. */
  private keepForLater(sent: Map<string, number>): void {
    for (const [key, points] of sent) {
      const window = this.windows.get(key);
      if (window) {
        window.inFlight -= points;
        window.pending += points;
      }
    }
  }

  /** Takes in PostgreSQL's answer for `key` after `confirmed` of this process's points reached it. */
  private learn(key: string, total: number, endsAt: number, confirmed: number): void {
    const window = this.windows.get(key);
    if (!window) {
      this.windows.set(key, { known: total, endsAt, pending: 0, inFlight: 0, lastUsedAt: Date.now() });
      return;
    }
    window.inFlight = Math.max(0, window.inFlight - confirmed);
    // A later window ends at least a whole window (>= 1 s) later; the same window's end, computed
    // from a remaining time, may differ by a few milliseconds.
    if (endsAt >= window.endsAt + NEW_WINDOW_MIN_MS) {
      window.known = total;
      window.endsAt = endsAt;
    } else {
      window.known = Math.max(window.known, total);
    }
  }
}

/**
 * The request budgets, shared through PostgreSQL (rate-limiter-flexible's PostgreSQL store) by
 * every Laurel process on the database:
 * - a wallet's requests, all its API keys together (GraphQL: one per root field), counted in
 *   memory first (LocallyCountedBudget);
 * - key issuance (/key/challenge and /key/verify) per client address;
 * - challenges per wallet, whoever asks for them;
 * - GraphQL requests without a valid key per client address, counted in memory first too.
 * Over a budget: RateLimitedError (429 with Retry-After).
 */
export class RequestBudgets {
  private readonly wallets: LocallyCountedBudget;
  private readonly anonymousGraphqlByClient: LocallyCountedBudget;
  private readonly keyRequestsByClient: RateLimiterPostgres;
  private readonly challengesByWallet: RateLimiterPostgres;

  constructor(pool: Pool, auth: Config['auth'], log: Logger) {
    const wallets = limiter(pool, 'wallet', auth.rateLimit.maxRequests, auth.rateLimit.windowSeconds);
    this.wallets = new LocallyCountedBudget(pool, wallets, 'wallet', log);
    const anonymous = limiter(pool, 'graphql-client', auth.anonymousGraphqlPerClient, 60);
    this.anonymousGraphqlByClient = new LocallyCountedBudget(
      pool,
      anonymous,
      'anonymous_graphql_per_client',
      log,
    );
    this.keyRequestsByClient = limiter(pool, 'key-client', auth.keyRequestsPerClient, 60);
    this.challengesByWallet = limiter(pool, 'challenge-wallet', auth.challengesPerWallet, 60);
  }

  /** Spends `cost` of the wallet's budget. */
  spendWallet(address: string, cost = 1): Promise<void> {
    return this.wallets.spend(address, cost);
  }

  /** Spends one of the client's GraphQL requests without a valid key. */
  spendAnonymousGraphql(clientAddress: string): Promise<void> {
    return this.anonymousGraphqlByClient.spend(clientKey(clientAddress), 1);
  }

  /** Spends one of the client's key-issuance requests. */
  spendKeyRequest(clientAddress: string): Promise<void> {
    return spend(this.keyRequestsByClient, clientKey(clientAddress), 1, 'key_requests_per_client');
  }

  /** Spends one of the wallet's challenges. */
  spendChallenge(address: string): Promise<void> {
    return spend(this.challengesByWallet, address, 1, 'challenges_per_wallet');
  }

  /** Sends the counts still in memory to PostgreSQL; no more periodic sends. */
  async stop(): Promise<void> {
    await Promise.all([this.wallets.stop(), this.anonymousGraphqlByClient.stop()]);
  }
}

/**
 * A client address as a budget's key. Behind TRUST_PROXY it is what X-Forwarded-For says, which
 * a client writes: a long one is stored by its digest, within the key column's bound.
 */
function clientKey(clientAddress: string): string {
  return clientAddress.length <= 64 ? clientAddress : `sha256:${hash('sha256', clientAddress, 'hex')}`;
}

async function spend(
  limiter: RateLimiterPostgres | RateLimiterMemory,
  key: string,
  cost: number,
  budget: RequestBudget,
): Promise<void> {
  try {
    await limiter.consume(key, cost);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), budget);
    }
    throw rejection;
  }
}
