import { formatBaseUnits } from '../../chain/amounts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { Pool } from 'pg';
import type { IndexDirectory } from '../../indexer/index-directory';
import type { IndexReadCache } from '../../indexer/index-read-cache';
import { AppNotFoundError } from '../apps/apps.service';
import type { ProfileInput } from './profile.schema';

const XP_DECIMALS = 18;

/**
 * SQL formatting base units of XP as formatBaseUnits(amount, 18) does ("1.5", "100", no trailing
 * zeros): multiplying by a numeric of scale 18 is exact. Done by PostgreSQL, a profile's actions,
 * however many, arrive in their final shape.
 */
const XP_FORMATTED_SQL = (amount: string) =>
  `trim_scale(${amount} * 0.${'0'.repeat(XP_DECIMALS - 1)}1)::text`;

export interface CollectedBadge {
  id: string;
  name: string;
  metadataURI: string | null;
  metadata: null;
}

export interface CompletedActionEntry {
  name: string;
  /** XP rewarded by the action, in formatted units ("0" for a badge, credit or point reward). */
  xp_rewarded: string;
  /** Block time, seconds since the epoch, as a decimal string. */
  createdAt: string;
}

export interface CreditBalanceEntry {
  token_id: string;
  token_name: string;
  token_balance: string;
  token_balance_formatted: string;
  token_symbol: string;
  token_decimals: number;
}

export interface UserProfile {
  user_id: string;
  /** XP in formatted units (18 decimals), as a decimal string. */
  xp_balance: string;
  collected_badges: CollectedBadge[];
  completed_actions: CompletedActionEntry[];
  /** Only with an app: its credit and point tokens. */
  credit_balances?: CreditBalanceEntry[];
}

export interface ProfileServiceDeps {
  /** node-postgres directly: profiles are the hot path, one statement for any number of users. */
  pool: Pool;
  chains: ChainRegistry;
  directory: IndexDirectory;
  /** Answers kept until their chain's index changes (shared with the leaderboard). */
  cache: IndexReadCache;
}

/**
 * Profiles from the index: a user's XP balance, badges, completed actions and (for one app) credit
 * and point balances. Built for many users at once (four queries whatever their number), so a list
 * of profiles (GraphQL's leaderboard entries) costs the same as one.
 */
export class ProfileService {
  constructor(private readonly deps: ProfileServiceDeps) {}

  /** The index facts this service caches, shared with the leaderboard. */
  get directory(): IndexDirectory {
    return this.deps.directory;
  }

  /** The answers this service caches, shared with the leaderboard. */
  get cache(): IndexReadCache {
    return this.deps.cache;
  }

  async profile(input: ProfileInput, caller: string): Promise<UserProfile> {
    const chain = this.deps.chains.get(input.chain);
    if (input.app_id) await this.requireApp(chain, input.app_id);
    const user = input.user_id ?? caller;
    return this.deps.cache.read(chain.chainId, {
      key: `profile\n${input.app_id ?? ''}\n${user}`,
      load: async () => (await this.profiles(chain, input.app_id, [user]))[0],
      sizeOf: profileSize,
    });
  }

  /** The app's XP token; 404 `App not found` unless the index knows the app. */
  async requireApp(chain: Chain, appId: string): Promise<string> {
    const xpToken = await this.deps.directory.xpTokenOf(chain, appId);
    if (!xpToken) throw new AppNotFoundError(chain, appId);
    return xpToken;
  }

  /** The profiles of `users` (checksummed), in that order; of one app when `appId` is given. */
  async profiles(chain: Chain, appId: string | undefined, users: readonly string[]): Promise<UserProfile[]> {
    // $1 the chain, $2 the user (or users), $3 the app when there is one.
    const ofApp = (column: string) => (appId ? `AND ${column} = $3` : '');
    const single = users.length === 1;
    // One statement for every user: each part is a correlated subquery on the user's index rows.
    const { rows } = await this.deps.pool.query<ProfileRow>({
      // Named, so each connection parses it once and, for one user, soon runs one generic plan:
      // planning costs more than running it. (For a list, unnest's row estimate from the actual
      // array makes PostgreSQL plan every call.)
      name: `profiles${appId ? '-of-app' : ''}${single ? '-one' : ''}`,
      text: `SELECT u.address AS "user",
        (SELECT coalesce(sum(b.balance), 0)::text FROM token_balances b
         JOIN indexed_tokens t ON t.chain_id = b.chain_id AND t.address = b.token_address AND t.kind = 'xp'
         WHERE b.chain_id = $1 AND b.holder = u.address ${ofApp('t.app_address')}) AS xp,
        (SELECT coalesce(json_agg(json_build_object('id', g.address, 'name', g.name, 'uri', g.base_uri)
                  ORDER BY g.block_number, g.address), '[]')
         FROM badge_holdings h JOIN indexed_badges g ON g.chain_id = h.chain_id AND g.address = h.badge_address
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
      values: [chain.chainId, single ? users[0] : [...users], ...(appId ? [appId] : [])],
    });
    const byUser = new Map(rows.map((row) => [row.user, row]));
    return users.map((user) => profileOf(user, byUser.get(user)!, appId !== undefined));
  }
}

/** Roughly the bytes of a profile's JSON: its lists dominate. */
function profileSize(profile: UserProfile): number {
  return (
    200 +
    profile.completed_actions.length * 80 +
    profile.collected_badges.length * 160 +
    (profile.credit_balances?.length ?? 0) * 240
  );
}

interface ProfileRow {
  user: string;
  xp: string;
  badges: { id: string; name: string; uri: string }[];
  actions: CompletedActionEntry[];
  credits: { id: string; name: string; symbol: string; decimals: number; balance: string }[] | null;
}

function profileOf(user: string, row: ProfileRow, withCredits: boolean): UserProfile {
  const profile: UserProfile = {
    user_id: user,
    xp_balance: formatBaseUnits(BigInt(row.xp), XP_DECIMALS),
    collected_badges: row.badges.map((badge) => ({
      id: badge.id,
      name: badge.name,
      metadataURI: badge.uri || null,
      metadata: null,
    })),
    completed_actions: row.actions,
  };
  if (withCredits) {
    profile.credit_balances = (row.credits ?? []).map((token) => ({
      token_id: token.id,
      token_name: token.name,
      token_balance: token.balance,
      token_balance_formatted: formatBaseUnits(BigInt(token.balance), token.decimals),
      token_symbol: token.symbol,
      token_decimals: token.decimals,
    }));
  }
  return profile;
}
