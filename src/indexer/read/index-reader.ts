/**
 * The read side of the index: every SELECT on the index tables (apps, operators, tokens, badges,
 * holdings, balances, completed actions, reward totals) and the read caches that keep their
 * answers until the rows they were read from change. Modules ask it; none of them writes SQL on
 * these tables.
 */
import { CacheOnSuccess } from '../../cache-on-success';
import { XP_DECIMALS } from '../../chain/contracts';
import type { Queryable } from '../../db/read-replicas';
import type { LaurelMetrics } from '../../metrics';
import type { IndexChanges } from '../index-changes';
import { IndexReadCache } from './index-read-cache';
import { LeaderboardReader } from './leaderboard-reader';

/**
 * Facts of the index that do not change once written (an app's XP token, a token's decimals), at
 * most this many; forgotten when rows are taken out of the index (a reorganisation removed them).
 */
const FACTS_KEPT = 10_000;

/**
 * SQL formatting base units of XP as formatBaseUnits(amount, 18) does ("1.5", "100", no trailing
 * zeros): multiplying by a numeric of scale 18 is exact. Done by PostgreSQL, a profile's actions,
 * however many, arrive in their final shape.
 */
const XP_FORMATTED_SQL = (amount: string) =>
  `trim_scale(${amount} * 0.${'0'.repeat(XP_DECIMALS - 1)}1)::text`;

export interface IndexedApp {
  id: string;
  name: string;
  owner: string;
  xp_token: string;
  /** Its operators (the owner not among them), by address. */
  operators: string[];
}

export interface IndexedBadge {
  id: string;
  name: string;
  /** The badge's base URI, null when it has none. */
  metadataURI: string | null;
  /** The JSON object fetched from metadataURI (badge_metadata); null until one was. */
  metadata: Record<string, unknown> | null;
  /** Users holding at least one of its tokens. */
  holders: number;
}

export interface IndexedToken {
  id: string;
  name: string;
  symbol: string;
  decimals: number;
  is_point: boolean;
}

/** A user's index rows, as one statement reads them for a profile. */
export interface ProfileRow {
  user: string;
  /** XP in base units. */
  xp: string;
  /** `metadata`: the JSON object fetched from `uri` (badge_metadata); null until one was. */
  badges: { id: string; name: string; uri: string; metadata: Record<string, unknown> | null }[];
  /** In their final form: action name, XP formatted ("0" for other rewards), block time in seconds. */
  actions: { name: string; xp_rewarded: string; createdAt: string }[];
  /** Only for a profile of one app: its credit and point tokens with the user's balance (base units). */
  credits: { id: string; name: string; symbol: string; decimals: number; balance: string }[] | null;
}

/** Roughly the bytes of a profile's rows: its lists dominate (a badge's metadata as its JSON's length). */
function profileRowSize(row: ProfileRow): number {
  const metadata = row.badges.reduce(
    (bytes, badge) => bytes + (badge.metadata ? JSON.stringify(badge.metadata).length : 0),
    0,
  );
  return (
    200 + row.actions.length * 80 + row.badges.length * 160 + metadata + (row.credits?.length ?? 0) * 240
  );
}

export class IndexReader {
  /** Answers kept until their chain's index changes. */
  readonly cache: IndexReadCache;
  /** Leaderboards: totals, windows, and the cached days windows are ranked from. */
  readonly leaderboards: LeaderboardReader;
  private readonly facts = new CacheOnSuccess<string | number>(FACTS_KEPT);

  constructor(
    /** The primary's pool, or the read replicas' router (src/db/read-replicas.ts). */
    private readonly pool: Queryable,
    private readonly changes: IndexChanges,
    cacheBytes: number,
    metrics: LaurelMetrics | null = null,
  ) {
    this.cache = new IndexReadCache(changes, cacheBytes, metrics);
    this.leaderboards = new LeaderboardReader(pool, this.cache);
    changes.subscribe((change) => {
      if (!change || change.removed) this.facts.clear();
    });
  }

  /** Calls `wake` whenever the chain's index may have changed, in any process; returns what stops it. */
  watchChain(chainId: number, wake: () => void): () => void {
    return this.changes.watchChain(chainId, wake);
  }

  /** A fact that does not change once indexed; only found rows are kept (an app not indexed yet is asked again). */
  private fact<T extends string | number>(key: string, load: () => Promise<T | null>): Promise<T | null> {
    return this.facts.get(key, load) as Promise<T | null>;
  }

  /** The XP token of an indexed app; null when the index does not know the app. */
  xpTokenOf(chainId: number, app: string): Promise<string | null> {
    return this.fact(`xp-token:${chainId}:${app}`, async () => {
      const { rows } = await this.pool.query<{ xp_token: string }>(
        'SELECT xp_token FROM indexed_apps WHERE chain_id = $1 AND address = $2',
        [chainId, app],
      );
      return rows[0]?.xp_token ?? null;
    });
  }

  /** Decimals of an indexed ERC-20 (0 for a badge); null for a token the index does not know. */
  decimalsOf(chainId: number, token: string): Promise<number | null> {
    return this.fact(`decimals:${chainId}:${token}`, async () => {
      const { rows } = await this.pool.query<{ decimals: number }>(
        `SELECT decimals FROM indexed_tokens WHERE chain_id = $1 AND address = $2
         UNION ALL SELECT 0 FROM indexed_badges WHERE chain_id = $1 AND address = $2`,
        [chainId, token],
      );
      return rows[0]?.decimals ?? null;
    });
  }

  /** The apps `account` owns or operates, in creation order, with their operators. */
  async appsOf(chainId: number, account: string): Promise<IndexedApp[]> {
    const { rows } = await this.pool.query<IndexedApp>(
      `SELECT a.address AS id, a.name, a.owner, a.xp_token,
         ARRAY(SELECT o.operator FROM indexed_app_operators o
               WHERE o.chain_id = a.chain_id AND o.app_address = a.address ORDER BY o.operator) AS operators
       FROM indexed_apps a
       WHERE a.chain_id = $1
         AND (a.owner = $2 OR EXISTS (
           SELECT 1 FROM indexed_app_operators o
           WHERE o.chain_id = a.chain_id AND o.app_address = a.address AND o.operator = $2))
       ORDER BY a.block_number, a.address`,
      [chainId, account],
    );
    return rows;
  }

  /** An app's badges in creation order, with their holder counts. */
  async badgesOf(chainId: number, app: string): Promise<IndexedBadge[]> {
    const { rows } = await this.pool.query<IndexedBadge>(
      `SELECT b.address AS id, b.name, NULLIF(b.base_uri, '') AS "metadataURI", m.document AS metadata,
         b.holders
       FROM indexed_badges b LEFT JOIN badge_metadata m ON m.uri = b.base_uri
       WHERE b.chain_id = $1 AND b.app_address = $2
       ORDER BY b.block_number, b.address`,
      [chainId, app],
    );
    return rows;
  }

  /** An app's credit and point tokens, in creation order. */
  async tokensOf(chainId: number, app: string): Promise<IndexedToken[]> {
    const { rows } = await this.pool.query<IndexedToken>(
      `SELECT address AS id, name, symbol, decimals, kind = 'point' AS is_point
       FROM indexed_tokens
       WHERE chain_id = $1 AND app_address = $2 AND kind <> 'xp'
       ORDER BY block_number, address`,
      [chainId, app],
    );
    return rows;
  }

  /** One user's profile rows (of one app when `appId` is given), cached until the chain's index changes. */
  profile(chainId: number, appId: string | undefined, user: string): Promise<ProfileRow> {
    return this.cache.read(chainId, {
      key: `profile\n${appId ?? ''}\n${user}`,
      load: async () => (await this.profiles(chainId, appId, [user]))[0],
      sizeOf: profileRowSize,
    });
  }

  /**
   * The profile rows of `users` (checksummed), in that order; of one app when `appId` is given.
   * One statement whatever their number: each part is a correlated subquery on the user's rows.
   */
  async profiles(
    chainId: number,
    appId: string | undefined,
    users: readonly string[],
  ): Promise<ProfileRow[]> {
    // $1 the chain, $2 the user (or users), $3 the app when there is one.
    const ofApp = (column: string) => (appId ? `AND ${column} = $3` : '');
    const single = users.length === 1;
    const { rows } = await this.pool.query<ProfileRow>({
      // Named, so each connection parses it once and, for one user, soon runs one generic plan:
      // planning costs more than running it. (For a list, unnest's row estimate from the actual
      // array makes PostgreSQL plan every call. Behind a transaction-mode pooler it goes unnamed:
      // src/db/connection.ts.)
      name: `profiles${appId ? '-of-app' : ''}${single ? '-one' : ''}`,
      text: `SELECT u.address AS "user",
        (SELECT coalesce(sum(b.balance), 0)::text FROM token_balances b
         JOIN indexed_tokens t ON t.chain_id = b.chain_id AND t.address = b.token_address AND t.kind = 'xp'
         WHERE b.chain_id = $1 AND b.holder = u.address ${ofApp('t.app_address')}) AS xp,
        (SELECT coalesce(json_agg(json_build_object('id', g.address, 'name', g.name, 'uri', g.base_uri,
                  'metadata', m.document) ORDER BY g.block_number, g.address), '[]')
         FROM badge_holdings h JOIN indexed_badges g ON g.chain_id = h.chain_id AND g.address = h.badge_address
           LEFT JOIN badge_metadata m ON m.uri = g.base_uri
         WHERE h.chain_id = $1 AND h.holder = u.address AND h.count > 0 ${ofApp('g.app_address')}) AS badges,
        (SELECT coalesce(json_agg(json_build_object('name', a.action_name,
                  'xp_rewarded', CASE WHEN a.kind = 'xp' THEN ${XP_FORMATTED_SQL('a.amount')} ELSE '0' END,
                  'createdAt', extract(epoch FROM a.block_time)::bigint::text) ORDER BY a.block_number DESC, a.log_index DESC), '[]')
         FROM completed_actions a
         WHERE a.chain_id = $1 AND a.user_address = u.address ${ofApp('a.app_address')}) AS actions,
        ${
          appId
            ? `(SELECT coalesce(json_agg(json_build_object('id', t.address, 'name', t.name, 'symbol', t.symbol,
                  'decimals', t.decimals, 'balance', coalesce(b.balance, 0)::text) ORDER BY t.kind, t.name, t.address), '[]')
                FROM indexed_tokens t LEFT JOIN token_balances b
                  ON b.chain_id = t.chain_id AND b.token_address = t.address AND b.holder = u.address
                WHERE t.chain_id = $1 AND t.app_address = $3 AND t.kind <> 'xp')`
            : 'NULL::json'
        } AS credits
      FROM ${single ? '(SELECT $2::varchar AS address) AS u' : 'unnest($2::varchar[]) AS u(address)'}`,
      values: [chainId, single ? users[0] : [...users], ...(appId ? [appId] : [])],
    });
    const byUser = new Map(rows.map((row) => [row.user, row]));
    return users.map((user) => byUser.get(user)!);
  }
}
